// Waiting on a wait group whose counter nobody will bring to zero (the
// task that would has blocked on a channel) is a deadlock.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static copystack_chan *never;

static void worker(void *arg) {
  (void)arg;
  int v;
  copystack_chan_recv(never, &v); // nobody sends
  copystack_waitgroup_done(&wg);
}

int main(void) {
  never = copystack_chan_make(sizeof(int), 0);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(worker, 0);
  copystack_waitgroup_wait(&wg);
  printf("not reached\n");
  return 0;
}
// CHECK: fatal error: all tasks are asleep - deadlock!
// CHECK-DAG: [wait group wait, {{[0-9]+}} {{ms|s}}]:
// CHECK-DAG: [chan receive, {{[0-9]+}} {{ms|s}}]:
// CHECK-NOT: not reached
