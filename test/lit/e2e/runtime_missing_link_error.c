// Instrumented code linked without the runtime (a bare -fplugin build that
// forgot libcopystack) fails to link with an error that names the cure, with
// GNU ld, gold and lld. The same for every variant: run once. Without
// debug information: gold 2.40 stops with an internal error when it looks up
// the DWARF 5 line of any undefined reference.
// REQUIRES: O2, normal
// RUN: %cc -g0 -c %s -o %t.o
// RUN: not %host_cc -g0 %t.o -o %t -fuse-ld=bfd 2>&1 | FileCheck %s
// RUN: not %host_cc -g0 %t.o -o %t -fuse-ld=gold 2>&1 | FileCheck %s
// RUN: not %host_cc -g0 %t.o -o %t -fuse-ld=lld 2>&1 | FileCheck %s
// RUN: %cc %t.o -o %t && %run %t
#include <stdio.h>

// CHECK: __copystack_runtime_missing__link_libcopystack_or_use_copystack_cc
int main(void) {
  puts("linked");
  return 0;
}
