// Every task blocked on a channel receive and nothing left to wake them:
// the program stops as Go's does, with the task dump (each task's wait,
// its frames and where it was started) and exit status 2, instead of
// hanging at 0% CPU.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

static copystack_chan *ch;

__attribute__((noinline)) static void receive_forever(void) {
  int v;
  copystack_chan_recv(ch, &v);
}

static void waiter(void *arg) {
  (void)arg;
  receive_forever();
}

int main(void) {
  ch = copystack_chan_make(sizeof(int), 0);
  copystack_go(waiter, 0);
  int v;
  copystack_chan_recv(ch, &v);
  printf("not reached\n");
  return 0;
}
// CHECK: fatal error: all tasks are asleep - deadlock!
// CHECK-DAG: task 2 [chan receive, {{[0-9]+}} {{ms|s}}]:
// CHECK-DAG: receive_forever at {{.*}}deadlock_channel.c:13
// CHECK-DAG: created by main at {{.*}}deadlock_channel.c:23
// CHECK-DAG: task 1 [chan receive, {{[0-9]+}} {{ms|s}}]:
// CHECK-DAG: main at {{.*}}deadlock_channel.c:25
// CHECK-NOT: not reached
