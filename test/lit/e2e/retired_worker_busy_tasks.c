// A worker replaced while it was stuck in a foreign call leaves no task
// waiting for good. One worker and three busy tasks that never park: the
// worker preempts them in turn onto its thread's own list (a preempted
// task resumes only on the thread it stopped on). A fourth task then
// spends 50 ms in a foreign call; a task that wakes meanwhile makes the
// monitor hand the slot to a spare, which runs it. The call returns and
// its caller spins on, on the replaced thread. Every busy task must still
// get turns: before, the replaced thread ran the caller for good (no slot's
// watch preempted it any more) and the tasks preempted there never ran
// again.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"
#include "Inputs/spin.h"

#include <sys/syscall.h>
#include <unistd.h>

enum { kBusy = 3 };

static int stop, spinning;
static long caller_tid;
static long counts[kBusy + 1]; // the busy tasks', then the caller's
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static copystack_waitgroup go = COPYSTACK_WAITGROUP_INIT;

static void spin_until_stop(long i) {
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    __atomic_fetch_add(&counts[i], 1, __ATOMIC_RELAXED);
}

static void busy(void *arg) {
  spin_until_stop((long)arg);
  copystack_waitgroup_done(&wg);
}

static void caller(void *arg) {
  (void)arg;
  copystack_waitgroup_wait(&go);
  __atomic_store_n(&caller_tid, (long)syscall(SYS_gettid), __ATOMIC_RELAXED);
  __atomic_store_n(&spinning, 1, __ATOMIC_RELAXED);
  spin_ms(50);
  __atomic_store_n(&spinning, 0, __ATOMIC_RELAXED);
  spin_until_stop(kBusy);
  copystack_waitgroup_done(&wg);
}

static void snapshot(long *out) {
  for (int i = 0; i <= kBusy; i++)
    out[i] = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
}

static void controller(void *arg) {
  (void)arg;
  copystack_sleep_ns(40000000); // every busy task has been preempted
  copystack_waitgroup_done(&go);
  while (!__atomic_load_n(&spinning, __ATOMIC_RELAXED))
    copystack_sleep_ns(1000000);
  copystack_sleep_ns(5000000); // wakes during the call: the hand-off
  int during = __atomic_load_n(&spinning, __ATOMIC_RELAXED);
  long me = (long)syscall(SYS_gettid);
  printf("ran during the call on another thread: %s\n",
         during && me != __atomic_load_n(&caller_tid, __ATOMIC_RELAXED)
             ? "yes"
             : "no");
  while (__atomic_load_n(&spinning, __ATOMIC_RELAXED))
    copystack_sleep_ns(1000000);
  long before[kBusy + 1], after[kBusy + 1];
  snapshot(before);
  copystack_sleep_ns(200000000);
  snapshot(after);
  for (int i = 0; i <= kBusy; i++)
    if (after[i] == before[i])
      printf("task %d: no turn in 200 ms after the call\n", i);
  printf("turns after the call: done\n");
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&go, 1);
  copystack_waitgroup_add(&wg, kBusy + 2);
  for (long i = 0; i < kBusy; i++)
    copystack_go(busy, (void *)i);
  copystack_go(caller, 0);
  copystack_go(controller, 0);
  copystack_waitgroup_wait(&wg);
  printf("done\n");
  return 0;
}
// CHECK: ran during the call on another thread: yes
// CHECK-NOT: no turn
// CHECK: turns after the call: done
// CHECK: done
