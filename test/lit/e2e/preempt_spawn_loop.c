// A task that spawns in a loop is preempted (it spends most of its time in
// the runtime, where the split-stack limit is 0) and then waits behind the
// tasks it spawned, as a preempted goroutine waits at the global queue's
// tail: with one worker, most of the spawned tasks have run and ended
// before the loop does, instead of piling up until main waits (before,
// only a run queue's worth ran at each preemption, and the tasks held
// their stacks at once).
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"
#include <time.h>

enum { kTasks = 20000 };

static long ended;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void task(void *arg) {
  (void)arg;
  __atomic_fetch_add(&ended, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, kTasks);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < kTasks; i++)
    copystack_go(task, 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  long before = __atomic_load_n(&ended, __ATOMIC_RELAXED);
  copystack_waitgroup_wait(&wg);
  long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
  // A loop shorter than two time slices may never have been preempted:
  // nothing to check then. A longer one was, about a time slice (10 ms)
  // in, and the tasks spawned before that ran before main did again: a
  // third or more of them when the loop took under 30 ms (33-99% in 15
  // runs beside two busy processes), and a longer loop was preempted
  // again. A quarter is far above what ran before (a run queue's worth,
  // 256 a preemption) and does not depend on where the next slice ends.
  printf("many tasks ended while main spawned: %s\n",
         ms < 20 || before > kTasks / 4 ? "yes" : "NO");
  fprintf(stderr, "loop %ld ms, %ld of %d ended during it\n", ms, before,
          kTasks);
  return 0;
}
// CHECK: many tasks ended while main spawned: yes
