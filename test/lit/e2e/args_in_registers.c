// A function whose own prologue grows the stack (its 8 KiB frame does not
// fit in 2 KiB) receives six pointers to its caller's locals in the six
// argument registers, with doubles in the vector registers between them;
// all of them are valid in the function body on the new stack.
// UNSUPPORTED: aarch64
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

__attribute__((noinline)) static double six(int *a, double x, int *b, int *c,
                                            double y, int *d, int *e, int *f) {
  char big[8192];
  big[0] = 1;
  big[8191] = 2;
  CS_KEEP(big);
  return *a + *b + *c + *d + *e + *f + x + y + big[0] + big[8191];
}

int main(void) {
  int a = 1, b = 2, c = 3, d = 4, e = 5, f = 6;
  unsigned long before = cs_growths();
  double r = six(&a, 0.5, &b, &c, 0.25, &d, &e, &f);
  REQUIRE(cs_growths() > before);
  printf("%.2f\n", r);
  return 0;
}
// CHECK: 24.75
