// A runaway recursion in a C++ function stops with a message that names
// the function demangled (not _ZL4growi), and the dump shows its frames,
// innermost first, and how many more there are.
// RUN: %cxx %s -o %t
// RUN: %exits 2 env COPYSTACK_MAX_STACK=64K %run %t 2>&1 | FileCheck %s
#include "Inputs/check.hpp"

__attribute__((noinline)) static int grow(int depth) {
  char frame[200];
  frame[0] = static_cast<char>(depth);
  CS_KEEP(frame);
  return grow(depth + 1) + frame[0];
}

int main() { return grow(0); }
// CHECK: copystack: fatal: stack of task 1 would grow to 128 KiB, over the maximum stack size of 64 KiB, when grow(int) asked
// CHECK: task 1 [running]:
// CHECK-NEXT: #0 grow(int){{( at .*dump_max_stack_demangled.cpp:8)?$}}
// CHECK-NEXT: #1 grow(int) at {{.*}}dump_max_stack_demangled.cpp:12
// CHECK: ...{{[0-9]+}} more frames...
