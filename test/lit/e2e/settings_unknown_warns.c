// A COPYSTACK_* variable that is not a setting (a typo) gets a warning
// naming the closest one; the program runs on.
// RUN: %cc %s -o %t
// RUN: %run env COPYSTACK_STRES=1 %t 2>&1 | FileCheck %s
// RUN: %run env COPYSTACK_NOT_A_KNOB_AT_ALL=1 %t 2>&1 | FileCheck %s --check-prefix=FAR
#include "Inputs/check.h"

int main(void) {
  printf("ran\n");
  return 0;
}
// CHECK: copystack: warning: COPYSTACK_STRES is not a copystack setting; did you mean COPYSTACK_STRESS? (COPYSTACK_HELP=1 lists them)
// CHECK: ran
// FAR: copystack: warning: COPYSTACK_NOT_A_KNOB_AT_ALL is not a copystack setting (COPYSTACK_HELP=1 lists them)
// FAR: ran
