// Preemption at a loop's back edge: with one worker, a task spinning in a
// loop that calls nothing no longer starves the others; main, asleep while
// it spins, runs again and stops it.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"

// Shared between tasks: atomics, relaxed (no race for TSan either).
static int stop;
static unsigned long spins;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void spinner(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    __atomic_fetch_add(&spins, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, 1);
  copystack_go(spinner, 0);
  copystack_sleep_ns(30000000); // the spinner has the only worker now
  printf("main ran again while the task spun: %s\n",
         __atomic_load_n(&spins, __ATOMIC_RELAXED) > 0 ? "yes" : "NO");
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_wait(&wg);
  printf("spinner stopped\n");
  return 0;
}
// CHECK: main ran again while the task spun: yes
// CHECK: spinner stopped
