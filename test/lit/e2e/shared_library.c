// Maps in a PIE executable and in a shared library, both linked with default
// flags and the default linker: a stack that grows while frames of both are
// live, and calls across the two, with the static and the shared runtime.
// An instrumented library never carries a runtime of its own: it needs
// libcopystack.so and binds to the executable's runtime.
// RUN: %cc -fPIC -shared %S/Inputs/deep_lib.c -o %t.lib.so
// RUN: %cc -fPIE -pie %s %t.lib.so -Wl,-rpath,%T -o %t.static
// RUN: %run %t.static | FileCheck %s
// RUN: %cc --copystack-shared -fPIC -shared %S/Inputs/deep_lib.c -o %t.lib2.so
// RUN: %cc --copystack-shared -fPIE -pie %s %t.lib2.so -o %t.shared
// RUN: %run %t.shared | FileCheck %s
// RUN: readelf -d %t.static %t.lib.so | FileCheck %s --check-prefix=NOTEXTREL
// A library whose version script hides all but its API (as zlib's does)
// still shares the program's one runtime (found by building zlib):
// RUN: printf '{ global: lib_depth_sum; lib_call_back; local: *; };' > %t.map
// RUN: %cc -fPIC -shared -Wl,--version-script,%t.map %S/Inputs/deep_lib.c -o %t.lib3.so
// RUN: %cc -fPIE -pie %s %t.lib3.so -o %t.versioned
// RUN: %run %t.versioned | FileCheck %s
#include "Inputs/check.h"

int lib_depth_sum(int depth, int *acc);
int lib_call_back(int (*fn)(int *), int *cell);

static int grow_here(int *cell) {
  cs_burn(2000);
  return *cell;
}

int main(void) {
  int acc = 0;
  int r = lib_depth_sum(3000, &acc);
  printf("sum %d acc %d\n", r, acc);
  int cell = 77;
  printf("callback %d\n", lib_call_back(grow_here, &cell));
  REQUIRE(cs_growths() >= 8);
  return 0;
}
// CHECK: sum 3000 acc 3000
// CHECK: callback 77
// NOTEXTREL-NOT: TEXTREL
