// A task that a timer or a descriptor wakes runs before the busy tasks
// that keep every worker get another turn (docs/tasks.md, "The
// scheduler"). One worker, six tasks that never park: each counts its
// turns (it runs again after another task ran). While a task sleeps 1 ms,
// the busy task that had the worker runs on, is asked to yield when the
// sleeper wakes, and the sleeper runs next: one turn per wait (two when the wait spans
// the end of a 10 ms time slice). Waiting 1 ms for a pipe that a sleeping
// task writes, one more: the writer's wake-up ends a turn too. A woken
// task that queued behind the busy ones waited for every one of them to
// have a turn: six per wait, 60 ms for a 1 ms sleep.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"

#include <unistd.h>

enum { kBusy = 6, kWaits = 40 };

static int stop;
static long turns;
static long last_runner = -1;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static int fds[2];

static void busy(void *arg) {
  long me = (long)arg;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    if (__atomic_exchange_n(&last_runner, me, __ATOMIC_RELAXED) != me)
      __atomic_fetch_add(&turns, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

static void writer(void *arg) {
  (void)arg;
  for (int i = 0; i < kWaits; i++) {
    copystack_sleep_ns(1000000);
    char c = 'x';
    REQUIRE(write(fds[1], &c, 1) == 1);
  }
  copystack_waitgroup_done(&wg);
}

// Busy turns per wait, rounded, while the caller waits kWaits times in wait().
static long turns_per_wait(void (*wait)(void)) {
  long before = __atomic_load_n(&turns, __ATOMIC_RELAXED);
  for (int i = 0; i < kWaits; i++) {
    wait();
    __atomic_store_n(&last_runner, -1, __ATOMIC_RELAXED); // it ran
  }
  long n = __atomic_load_n(&turns, __ATOMIC_RELAXED) - before;
  return (n + kWaits / 2) / kWaits;
}

static void sleep_1ms(void) { copystack_sleep_ns(1000000); }

static void read_pipe(void) {
  char c;
  REQUIRE(read(fds[0], &c, 1) == 1);
}

static void waiter(void *arg) {
  (void)arg;
  copystack_sleep_ns(50000000); // every busy task has run

  long sleeping = turns_per_wait(sleep_1ms);
  printf("sleep: %s\n", sleeping <= 3 ? "woken first" : "BEHIND BUSY TASKS");

  copystack_waitgroup_add(&wg, 1);
  copystack_go(writer, 0);
  long reading = turns_per_wait(read_pipe);
  printf("pipe: %s\n", reading <= 3 ? "woken first" : "BEHIND BUSY TASKS");
  if (sleeping > 3 || reading > 3)
    printf("turns per wait: sleep %ld, pipe %ld\n", sleeping, reading);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  REQUIRE(pipe(fds) == 0);
  copystack_waitgroup_add(&wg, kBusy + 1);
  for (long i = 0; i < kBusy; i++)
    copystack_go(busy, (void *)i);
  // A spawned task, not main: main is its thread's own task, which is
  // never preempted (docs/tasks.md, "Preemption").
  copystack_go(waiter, 0);
  copystack_waitgroup_wait(&wg);
  printf("done\n");
  return 0;
}
// CHECK: sleep: woken first
// CHECK: pipe: woken first
// CHECK: done
