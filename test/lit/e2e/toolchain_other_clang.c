// CopyStack.so loaded into a clang other than the one it was built for
// (here Debian's clang-14): clang-14 -fplugin= died with SIGSEGV (the
// plugin's constructors registered into clang-14's registry, of another
// layout) and -fpass-plugin= with a symbol lookup error. CopyStack.so is
// now a shim without LLVM that asks which LLVM the process has first
// (plugin/Shim.c): one line naming both versions and what to do, and exit
// status 1, never a crash. In clang-19 it loads the plugin, both ways.
// REQUIRES: normal, clang-14
// RUN: %exits 1 clang-14 -fplugin=%cs_lib/CopyStack.so -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %exits 1 clang-14 -O2 -fpass-plugin=%cs_lib/CopyStack.so -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %exits 1 clang-14 -fplugin=%cs_lib/CopyStack.so -fpass-plugin=%cs_lib/CopyStack.so -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %exits 1 clang-14 -fno-integrated-cc1 -fplugin=%cs_lib/CopyStack.so -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %exits 1 clang-14 -fplugin=%cs_lib/CopyStack.so -c %s -o %t.o 2>&1 | count 1
// RUN: clang-19 -fplugin=%cs_lib/CopyStack.so -c %s -o %t.o && llvm-nm %t.o | FileCheck %s --check-prefix=INSTRUMENTED
// RUN: clang-19 -O2 -fpass-plugin=%cs_lib/CopyStack.so -c %s -o %t.o && llvm-nm %t.o | FileCheck %s --check-prefix=INSTRUMENTED
int answer(int x) { return x + 42; }
// CHECK: copystack: this clang is LLVM 14{{[0-9.]*}}, but CopyStack.so was built for clang 19.{{[0-9.]+}} and runs only in clang 19: compile with clang-19 (or the copystack-cc and copystack-c++ drivers), or rebuild copystack with this clang (CC=clang-14 CXX=clang++-14)
// INSTRUMENTED: U __copystack_runtime_missing__link_libcopystack_or_use_copystack_cc
