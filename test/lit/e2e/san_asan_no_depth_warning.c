// AddressSanitizer's check of a load from a local array turns the element's
// address into an integer and compares it (signed, <) with a shadow byte it
// loads from memory: the shape of a stack-depth check, which the compiler
// warns about (stack_depth_check.c). ASan keeps the locals in a frame of
// its own rather than on a fake stack when the function has inline asm
// (or with -fsanitize-address-use-after-return=never), and then the
// comparison is one with the frame's address. The warnings are made before
// the sanitizers' passes run, from the code the program wrote: the same
// with and without ASan, at every level, so -Werror builds the same.
// RUN: %cc -O1 -fsanitize=address -Werror -c %s -o %t.o 2>&1 | count 0
// RUN: %cc -fsanitize=address -Werror -c %s -o %t.o 2>&1 | count 0
// RUN: %cc -O1 -fsanitize=address -fsanitize-address-use-after-return=never -Werror -c %s -o %t.o 2>&1 | count 0
// RUN: %cc -O2 -fsanitize=address -fsanitize-address-use-after-return=never -Werror -c %s -o %t.o 2>&1 | count 0
// A real stack-depth check is still reported under ASan, once.
// RUN: %cc -O1 -fsanitize=address -DDEPTH_CHECK -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %cc -O1 -DDEPTH_CHECK -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=WARN
// And the program runs under ASan, in a task whose stack grows.
// RUN: %cc -O1 -fsanitize=address -Werror %s -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/check.h"

int which = 5; // a global the compiler cannot see through

__attribute__((noinline)) int get(int seed) {
  int a[16];
  for (int k = 0; k < 16; k++)
    a[k] = seed + 3 * k;
  CS_KEEP(a);
  return a[which];
}

#ifdef DEPTH_CHECK
// WARN: warning: copystack: 'too_deep' compares a stack address with a value loaded from memory
// WARN-NOT: warning:
uintptr_t stack_limit;
__attribute__((noinline)) int too_deep(void) {
  return (uintptr_t)__builtin_frame_address(0) < stack_limit;
}
#endif

__attribute__((noinline)) static int deep(int n) {
  char frame[128];
  frame[0] = (char)n;
  CS_KEEP(frame);
  if (n == 0)
    return get(1);
  return deep(n - 1) + frame[0] - (char)n;
}

int main(void) {
  // main is a task on a 2 KiB stack: 200 frames grow it.
  int r = deep(200);
  // CHECK: get: 16, grew: yes
  printf("get: %d, grew: %s\n", r, cs_growths() > 0 ? "yes" : "no");
  return 0;
}
// REQUIRES: san-address
