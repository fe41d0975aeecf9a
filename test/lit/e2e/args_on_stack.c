// More than six pointer arguments: the rest travel in the caller's frame,
// and a struct of pointers is passed by value (byval, also in the caller's
// frame). The callee's prologue grows the stack; after the move the callee
// reads all of them through the moved caller frame.
// UNSUPPORTED: aarch64
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

struct three {
  int *x, *y, *z;
  long n;
};

__attribute__((noinline)) static long many(int *a1, int *a2, int *a3, int *a4,
                                           int *a5, int *a6, int *a7, int *a8,
                                           struct three s, int *a9) {
  char big[8192];
  big[0] = 1;
  big[8191] = 2;
  CS_KEEP(big);
  return *a1 + *a2 + *a3 + *a4 + *a5 + *a6 + *a7 * 10 + *a8 * 100 +
         *s.x * 1000 + *s.y * 10000 + *s.z * 100000 + s.n * 1000000 +
         *a9 * 10000000 + big[0] - 1;
}

int main(void) {
  int v[9] = {1, 1, 1, 1, 1, 1, 2, 3, 9};
  int x = 4, y = 5, z = 6;
  struct three s = {&x, &y, &z, 7};
  unsigned long before = cs_growths();
  long r = many(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], s,
                &v[8]);
  REQUIRE(cs_growths() > before);
  printf("%ld\n", r);
  return 0;
}
// CHECK: 97654326
