// Preemption at a prologue: with one worker, a task that recurses without
// end (no loop, so no loop poll) no longer starves the others; it yields
// at the prologue check of its next call.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"

static volatile int stop;
static volatile unsigned long leaves;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

__attribute__((noinline)) static void tree(int depth) {
  if (stop)
    return;
  if (depth == 0) {
    leaves++;
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
  copystack_sleep_ns(30000000);
  printf("main ran again while the task recursed: %s\n",
         leaves > 0 ? "yes" : "NO");
  stop = 1;
  copystack_waitgroup_wait(&wg);
  printf("recursion stopped\n");
  return 0;
}
// CHECK: main ran again while the task recursed: yes
// CHECK: recursion stopped
