// copystack_set_workers returns the count in effect (not 0), takes a new
// count before the scheduler starts, accepts the same count once it runs,
// and refuses a different one with a message instead of ignoring it.
// RUN: %cc --copystack-no-main %s -o %t
// RUN: %exits 2 %run env COPYSTACK_WORKERS=3 %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

static void nothing(void *arg) { (void)arg; }

int main(void) {
  printf("before start: previous %d\n", copystack_set_workers(2));
  printf("again: previous %d\n", copystack_set_workers(2));
  copystack_go(nothing, 0); // starts the scheduler with 2 workers
  printf("running: workers %d, same count: previous %d\n",
         copystack_workers(), copystack_set_workers(2));
  fflush(stdout);
  copystack_set_workers(4);
  printf("not stopped\n");
  return 0;
}
// CHECK: before start: previous 3
// CHECK: again: previous 2
// CHECK: running: workers 2, same count: previous 2
// CHECK: copystack: fatal: copystack_set_workers(4): the scheduler is already running with 2 workers
// CHECK-NOT: not stopped
