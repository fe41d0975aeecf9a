// SIGQUIT dumps every task and exits with status 2, as Go does: the task
// that received it (running, in the raise() call), and the others with
// what they wait for.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"
#include <signal.h>

static copystack_chan *ch;

static void parked(void *arg) {
  (void)arg;
  int v;
  copystack_chan_recv(ch, &v);
}

int main(void) {
  ch = copystack_chan_make(sizeof(int), 0);
  copystack_go(parked, 0);
  copystack_sleep_ns(20 * 1000 * 1000); // until it has parked
  raise(SIGQUIT);
  printf("not reached\n");
  return 0;
}
// CHECK: SIGQUIT: quit
// CHECK: task 1 [running]:
// CHECK: main at {{.*}}dump_on_sigquit.c:21
// CHECK: task {{[0-9]+}} [chan receive, {{[0-9]+}} {{ms|s}}]:
// CHECK: parked at {{.*}}dump_on_sigquit.c:14
// CHECK: created by main at {{.*}}dump_on_sigquit.c:19
// CHECK-NOT: not reached
