// Found by scripts/csmith-diff (csmith 2.3.0, seed 56, -O0): a function whose
// last stack-passed argument is a byval struct whose size is not a multiple
// of 8 (here 17 bytes, alignment 1; csmith's was a 27-byte packed struct).
// The System V ABI gives it a 24-byte slot and LLVM's prologue loads 24 into
// %r11, but the frame map says 17 bytes of stack arguments, and verify mode
// stops the program at the first prologue check of callee.
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include <stdio.h>

struct S {
  char c[17];
};

__attribute__((noinline)) static int callee(struct S s, int *p) {
  return s.c[0] + s.c[16] + *p;
}

int main(void) {
  struct S s = {{1}};
  s.c[16] = 2;
  int k = 3;
  printf("%d\n", callee(s, &k));
  return 0;
}
// CHECK: 6
