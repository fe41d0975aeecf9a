// COPYSTACK_HELP=1 prints every setting with its value in effect, default
// and accepted forms, and exits before main runs.
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_HELP=1 COPYSTACK_MAX_STACK=64M %t | FileCheck %s
#include "Inputs/check.h"

int main(void) {
  printf("main ran\n");
  return 0;
}
// CHECK: copystack settings (environment variables), with the value in effect:
// CHECK: COPYSTACK_STRESS=0
// CHECK-NEXT: move the stack at every prologue check
// CHECK-NEXT: default: 0; accepts 0, 1, true, false, yes, no, on or off
// CHECK: COPYSTACK_VERIFY=
// CHECK: COPYSTACK_MAX_STACK=64M
// CHECK-NEXT: the largest stack one task may grow to.
// CHECK-NEXT: default: 1G; accepts a size of at least 2048 bytes
// CHECK: COPYSTACK_WORKERS=the CPUs
// CHECK: COPYSTACK_TRACEBACK=all
// CHECK: COPYSTACK_HELP=
// CHECK-NOT: main ran
