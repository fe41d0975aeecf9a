// The drivers run the clang the plugin was built for, and check that it
// is: a driver pointed at another clang (here a stand-in reporting 18.1.8)
// says which clang the plugin needs before running it
// (toolchain_other_clang.c: CopyStack.so in another clang).
// RUN: printf '#!/bin/sh\necho 18.1.8\n' > %t.clang && chmod +x %t.clang
// RUN: sed "s|^for candidate in .*; do|for candidate in %t.clang; do|" %cs_bin/copystack-cc > %t.cc
// RUN: not sh %t.cc -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %cc -c %s -o %t.o
// REQUIRES: normal
int answer(void) { return 42; }
// CHECK: is clang 18.1.8, but the copystack plugin was built for clang 19.{{[0-9.]+}} (clang-19) and runs only in that clang. Use clang-19
