// -v and -### show what the drivers run, and still link the runtime and run
// main as a task; -v alone only prints clang's version, as clang's does.
// REQUIRES: O2, normal
// RUN: %cc -v %s -o %t 2>&1 | FileCheck %s --check-prefix=VERBOSE
// RUN: %run %t | FileCheck %s
// RUN: %cc -### %s -o %t.dry 2>&1 | FileCheck %s --check-prefix=DRY
// RUN: test ! -e %t.dry
// RUN: %cc -v 2>&1 | FileCheck %s --check-prefix=ALONE
#include "Inputs/check.h"

// VERBOSE: -load {{.*}}CopyStack.so
// VERBOSE: --wrap=main {{.*}}libcopystack_main.a {{.*}}--whole-archive {{.*}}libcopystack.a
// DRY: "-load" "{{.*}}CopyStack.so"
// DRY: "--wrap=main" "{{.*}}libcopystack_main.a" "--whole-archive" "{{.*}}libcopystack.a"
// ALONE: clang version
// ALONE-NOT: libcopystack
// CHECK: main is a task: 1
int main(void) {
  printf("main is a task: %d\n", copystack_in_task());
  return 0;
}
