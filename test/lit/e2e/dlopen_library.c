// An instrumented library loaded with dlopen by a program that was not
// linked against it: its calls into the runtime bind to the program's
// (static) runtime, which the driver exports, so one runtime serves both.
// The library's frames grow the task's stack and call back into the program.
// RUN: printf '{ global: lib_depth_sum; lib_call_back; local: *; };' > %t.map
// RUN: %cc -fPIC -shared -Wl,--version-script,%t.map %S/Inputs/deep_lib.c -o %t.lib.so
// RUN: %cc %s -o %t -ldl
// RUN: %run %t %t.lib.so | FileCheck %s
#include "Inputs/check.h"

#include <dlfcn.h>

static int grow_here(int *cell) {
  cs_burn(2000);
  return *cell;
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib);
  int (*depth_sum)(int, int *) =
      (int (*)(int, int *))dlsym(lib, "lib_depth_sum");
  int (*call_back)(int (*)(int *), int *) =
      (int (*)(int (*)(int *), int *))dlsym(lib, "lib_call_back");
  REQUIRE(depth_sum && call_back);
  int acc = 0;
  int r = depth_sum(3000, &acc);
  printf("sum %d acc %d\n", r, acc);
  int cell = 77;
  printf("callback %d\n", call_back(grow_here, &cell));
  REQUIRE(cs_growths() >= 8);
  return 0;
}
// CHECK: sum 3000 acc 3000
// CHECK: callback 77
