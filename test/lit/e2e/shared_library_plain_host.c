// An instrumented library called from a program built without the
// drivers: the library brings its own (hidden) __morestack, so the host's
// link does not take libgcc's split-stack runtime instead (which set the
// thread's stack limit and crashed the first foreign call), and the
// runtime starts on first use: the library's tasks run, grow and talk.
// The host is not linked with -z now, so the runtime library must be: a
// lazily bound PLT entry of the runtime, called on a task stack (the
// preemption stub's), ran the resolver there and overflowed the guard band
// in about one run in ten under stress mode.
// A host built without a sanitizer cannot load a library built with one
// (with or without copystack).
// UNSUPPORTED: ubsan || tsan
// RUN: %cc -fPIC -shared %S/Inputs/tasks_lib.c -o %t.lib.so
// RUN: %host_cc %s %t.lib.so -Wl,-rpath,%T -o %t
// RUN: %run %t | FileCheck %s
// RUN: nm %t | FileCheck %s --check-prefix=HOST
// RUN: llvm-readelf-19 -d %cs_lib/libcopystack.so | FileCheck %s --check-prefix=NOW
#include <stdio.h>

long lib_sum(int n);

int main(void) {
  printf("sum %ld\n", lib_sum(100));
  return 0;
}
// CHECK: sum 5050
// HOST-NOT: __stack_split_initialize
// NOW: (FLAGS){{.*}}BIND_NOW
