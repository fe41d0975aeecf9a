// The pinned area's slow paths (a new chunk; giving one back) are calls the
// pass makes with LLVM's preserve_most convention (abi.h,
// COPYSTACK_SYM_PIN_GROW), so the code around them keeps values in the
// registers a C call would clobber. Here six arguments, live in their
// registers across the allocation of a block larger than any chunk (the
// grow call every time) and, with the return value in %rax, across the
// release; the results are checked against the same sums computed without
// the block. In every mode; -O0 spills them anyway.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

static long *volatile kept;
__attribute__((noinline)) static void keep(long *p) { kept = p; }

enum { kBig = 5000 }; // 40,000 bytes: over a chunk, so every call grows

__attribute__((noinline)) static long pinned(long a, long b, long c, long d,
                                             long e, long f) {
  long x[kBig];
  x[0] = a;
  x[1] = b;
  x[2] = c;
  x[3] = d;
  x[4] = e;
  x[5] = f;
  x[kBig - 1] = a ^ f;
  keep(x);
  return kept[0] + 3 * kept[1] + 5 * kept[2] + 7 * kept[3] + 11 * kept[4] +
         13 * kept[5] + kept[kBig - 1];
}

static long expected(long a, long b, long c, long d, long e, long f) {
  return a + 3 * b + 5 * c + 7 * d + 11 * e + 13 * f + (a ^ f);
}

int main(void) {
  long bad = 0;
  for (long i = 0; i < 20000; i++) {
    long a = i, b = i * 7 + 1, c = i ^ 0x5555, d = -i, e = i << 20,
         f = 0x123456789 + i;
    long r = pinned(a, b, c, d, e, f);
    // r was in %rax across the release: used after it, with the inputs.
    if (r != expected(a, b, c, d, e, f))
      bad++;
  }
  printf("wrong results: %ld\n", bad);
  return 0;
}
// CHECK: wrong results: 0
