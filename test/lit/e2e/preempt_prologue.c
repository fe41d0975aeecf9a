// Preemption at a prologue: with one worker, a task that recurses without
// end (no loop, so no loop poll) no longer starves the others; it yields
// at the prologue check of its next call.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"

// Shared between tasks: atomics, relaxed (no race for TSan either).
static int stop;
static unsigned long leaves;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

__attribute__((noinline)) static void tree(int depth) {
  if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
    return;
  if (depth == 0) {
    __atomic_fetch_add(&leaves, 1, __ATOMIC_RELAXED);
    return;
  }
  tree(depth - 1);
  tree(depth - 1);
}

static void recurser(void *arg) {
  (void)arg;
  tree(60); // 2^60 leaves: until stopped
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, 1);
  copystack_go(recurser, 0);
  // Main runs again once the task has run a time slice (on a loaded
  // machine the task may not have started by the first wake-up: again).
  for (int i = 0; i < 100 && !__atomic_load_n(&leaves, __ATOMIC_RELAXED); i++)
    copystack_sleep_ns(30000000);
  printf("main ran again while the task recursed: %s\n",
         __atomic_load_n(&leaves, __ATOMIC_RELAXED) ? "yes" : "NO");
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_wait(&wg);
  printf("recursion stopped\n");
  return 0;
}
// CHECK: main ran again while the task recursed: yes
// CHECK: recursion stopped
