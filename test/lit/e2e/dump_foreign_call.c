// A task in a call that blocks its worker shows in the task dump as such,
// naming the function that made the call: here sleep() through a function
// pointer, a foreign call the runtime cannot park (docs/tasks.md, "What
// still blocks the worker"). With one worker the monitor soon hands the
// other tasks to a spare, and the dump finds the task on the replaced
// worker's thread.
// RUN: %cc %s -o %t
// RUN: %exits 2 env COPYSTACK_WORKERS=1 %run %t 2>&1 | FileCheck %s
// RUN: %exits 2 env COPYSTACK_WORKERS=2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"
#include <signal.h>
#include <unistd.h>

static unsigned (*volatile sleeper)(unsigned) = sleep;

static volatile unsigned left;

__attribute__((noinline)) static void blocker(void *arg) {
  (void)arg;
  left = sleeper(100); // not a tail call: blocker makes the call
}

int main(void) {
  copystack_go(blocker, NULL);
  copystack_sleep_ns(100 * 1000 * 1000); // until it is in the call
  raise(SIGQUIT);
  printf("not reached\n");
  return 0;
}
// CHECK: SIGQUIT: quit
// CHECK: task 1 [running]:
// CHECK: task 2 [running on another thread, in a foreign call from blocker]:
// CHECK-NOT: not reached
