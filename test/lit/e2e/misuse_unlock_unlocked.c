// Unlocking a mutex that is not locked stops the program, as in Go.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

int main(int argc, char **argv) {
  (void)argv;
  copystack_mutex m = COPYSTACK_MUTEX_INIT;
  copystack_mutex_lock(&m);
  copystack_mutex_unlock(&m);
  copystack_mutex_unlock(&m);
  printf("not stopped\n");
  return 0;
}
// CHECK: copystack: fatal: unlock of unlocked mutex
