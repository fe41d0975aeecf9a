// Under ThreadSanitizer a deadlock is reported as without it, with the
// task dump symbolized: TSan's own background thread is not taken for a
// thread outside tasks that could still wake one, and the symbolizer is
// started without fork (TSan turns vfork into fork, whose atfork handlers
// would wait for the lock the deadlock check holds).
// RUN: %cc -fsanitize=thread %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
#include "Inputs/check.h"

static copystack_chan *ch;

static void waiter(void *arg) {
  (void)arg;
  int v;
  copystack_chan_recv(ch, &v);
}

int main(void) {
  ch = copystack_chan_make(sizeof(int), 0);
  copystack_go(waiter, 0);
  copystack_go(waiter, 0);
  int v;
  copystack_chan_recv(ch, &v);
  printf("not reached\n");
  return 0;
}
// CHECK: fatal error: all tasks are asleep - deadlock!
// CHECK: [chan receive
// CHECK: waiter at {{.*}}san_tsan_deadlock.c:15
// REQUIRES: san-thread
