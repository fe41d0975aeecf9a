// A wait group whose counter goes negative stops the program, as in Go.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

int main(int argc, char **argv) {
  (void)argv;
  copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
  copystack_waitgroup_add(&wg, 1);
  copystack_waitgroup_done(&wg);
  copystack_waitgroup_done(&wg);
  printf("not stopped\n");
  return 0;
}
// CHECK: copystack: fatal: negative WaitGroup counter
