// A task that locks a mutex it already holds waits for itself forever:
// with no other task to unlock it, that is a deadlock.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

int main(void) {
  copystack_mutex m = COPYSTACK_MUTEX_INIT;
  copystack_mutex_lock(&m);
  copystack_mutex_lock(&m);
  printf("not reached\n");
  return 0;
}
// CHECK: fatal error: all tasks are asleep - deadlock!
// CHECK: task 1 [mutex lock, {{[0-9]+}} {{ms|s}}]:
// CHECK: main at {{.*}}deadlock_mutex_twice.c:10
// CHECK-NOT: not reached
