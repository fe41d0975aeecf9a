// fork() while a task on the other worker is in the middle of parking: its
// context is saved, and the worker's half of the park (what then() does:
// here it waits before it releases the channel's lock, as a stress-mode
// move of the stack or a busy futex bucket makes it wait) has not run yet.
// The fork waits for that half (sched/fork.cc), so the child has the
// receiver waiting on the channel and the channel's lock free, and its
// send wakes it. Before, the fork went on at once: the child had a channel
// locked for ever and a receiver nobody could wake, and hung (its alarm
// ended it). The parent sees that the fork returned only after the park
// was over, and that it was called while the park was in its middle.
// Two workers: the receiver parks on one while main forks on the other;
// preemption off, so that main holds its worker until the other one has
// taken the receiver (a preempted main would resume only on its own
// worker, after the receiver's park).
// Not under TSan, which stops a child of a multi-threaded process that
// starts threads (docs/debugging.md).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_WORKERS=2 COPYSTACK_PREEMPT=0 %run %t | FileCheck %s
#include <copystack/copystack.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "Inputs/check.h"
#include "Inputs/fork_tally.h"

static copystack_chan *ch;
static copystack_waitgroup done = COPYSTACK_WAITGROUP_INIT;
static int in_then, let_go;
static long got;

// The worker's half of the receiver's park, on the worker's stack: the
// channel's own (__copystack_unlock_after_park), once let go.
__attribute__((annotate("copystack_nosplit"))) static void
unlock_when_let_go(void *lock) {
  __atomic_store_n(&in_then, 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&let_go, __ATOMIC_ACQUIRE))
    CS_PAUSE();
  __copystack_unlock_after_park(lock);
}

// copystack_chan_recv, with the park's second half above.
static void receiver(void *arg) {
  (void)arg;
  long v = 0;
  COPYSTACK_OPAQUE(&v);
  int r = __copystack_chan_recv_begin(ch, &v);
  if (r == COPYSTACK_MUST_PARK) {
    __copystack_park(unlock_when_let_go, __copystack_chan_lock_of(ch));
    r = __copystack_chan_recv_end(&v);
  }
  got = r ? v : -1;
  copystack_waitgroup_done(&done);
}

// A thread of its own (not a task): lets the park end 100 ms after it
// began.
__attribute__((annotate("copystack_nosplit"))) static void *
let_go_later(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&in_then, __ATOMIC_ACQUIRE))
    CS_PAUSE();
  struct timespec ts = {0, 100 * 1000 * 1000};
  nanosleep(&ts, 0);
  __atomic_store_n(&let_go, 1, __ATOMIC_RELEASE);
  return 0;
}

static void receive_one(long v) {
  copystack_waitgroup_add(&done, 1);
  copystack_go(receiver, 0);
  copystack_chan_send(ch, &v);
  copystack_waitgroup_wait(&done);
}

int main(void) {
  ch = copystack_chan_make(sizeof(long), 0);
  pthread_t helper;
  pthread_create(&helper, 0, let_go_later, 0);
  copystack_waitgroup_add(&done, 1);
  copystack_go(receiver, 0);
  while (!__atomic_load_n(&in_then, __ATOMIC_ACQUIRE))
    CS_PAUSE();
  int mid_park = !__atomic_load_n(&let_go, __ATOMIC_ACQUIRE);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(5);
    long v = 42;
    copystack_chan_send(ch, &v);
    copystack_waitgroup_wait(&done);
    printf("child: the receiver got %ld\n", got);
    fflush(stdout);
    _exit(7);
  }
  int over = __atomic_load_n(&let_go, __ATOMIC_ACQUIRE);
  struct cs_fork_tally t = {0, 0, 0};
  cs_wait_child(pid, &t);
  long v = 43;
  copystack_chan_send(ch, &v);
  copystack_waitgroup_wait(&done);
  printf("parent: the receiver got %ld\n", got);
  // And a receiver that parks as usual, after all that.
  receive_one(44);
  printf("parent: then %ld\n", got);
  pthread_join(helper, 0);
  printf("forked in the middle of a park: %s; the park was over when fork "
         "returned: %s; child: %d ok, %d hung, %d failed otherwise\n",
         mid_park ? "yes" : "no", over ? "yes" : "no", t.ok, t.hung, t.other);
  return !(mid_park && over && t.ok == 1);
}
// CHECK: child: the receiver got 42
// CHECK-NEXT: parent: the receiver got 43
// CHECK-NEXT: parent: then 44
// CHECK-NEXT: forked in the middle of a park: yes; the park was over when fork returned: yes; child: 1 ok, 0 hung, 0 failed otherwise
