// A program whose main is not a task (--copystack-no-main) runs a bound
// task with copystack_run; when that task waits on a channel nobody else
// has, the main thread is waiting for it and no other thread exists: a
// deadlock, found without the scheduler ever starting.
// RUN: %cc --copystack-no-main %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

static void body(void *arg) {
  (void)arg;
  copystack_chan *ch = copystack_chan_make(sizeof(int), 1);
  int v;
  copystack_chan_recv(ch, &v);
}

int main(void) {
  copystack_run(body, 0);
  printf("not reached\n");
  return 0;
}
// CHECK: fatal error: all tasks are asleep - deadlock!
// CHECK: [chan receive, {{[0-9]+}} {{ms|s}}]:
// CHECK: body at {{.*}}deadlock_bound_task.c:13
// CHECK: created by main at {{.*}}deadlock_bound_task.c:17
