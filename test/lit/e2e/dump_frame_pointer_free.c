// The task dump walks frames by the unwind tables' rules, as the
// relocation does: `middle` keeps no frame pointer (its map describes no
// locals) and uses %rbp for a value of its own, and the dump of a growth
// over the maximum still lists it and main above it; the %rbp chain
// would have taken its counter for a frame and stopped. (AArch64 keeps
// frame records by default: built there with -fomit-frame-pointer, x29 is
// the register `middle` may use.)
// RUN: %cc %if aarch64 %{ -fomit-frame-pointer %} %s -o %t
// RUN: %exits 2 env COPYSTACK_TRACEBACK=single %run %t 2>&1 | FileCheck %s
// RUN: %if aarch64 && O2 %{ %cc -fomit-frame-pointer -S %s -o - | FileCheck %s --check-prefix=ASM-A64 %}
// RUN: %if x86_64 && O2 && !tsan && !ubsan %{ %cc -S %s -o - | FileCheck %s --check-prefix=ASM %}
#include "Inputs/check.h"

__attribute__((noinline)) static int recurse_forever(int depth) {
  char frame[200]; // some 30 frames to the limit: the dump shows them all
  frame[0] = (char)depth;
  CS_KEEP(frame);
  return recurse_forever(depth + 1) + frame[0];
}

static volatile int start;

__attribute__((noinline)) long middle(long *a, long *b, long *c, long *d,
                                      long *e, long *f, int n) {
  long sum = 0;
  for (int i = 0; i < n; i++) {
    sum += recurse_forever(start);
    *a += 1, *b += 2, *c += 3, *d += 4, *e += 5, *f += 6;
    sum += *a;
  }
  return sum;
}

int main(void) {
  long v[6] = {0};
  copystack_set_max_stack(8 << 10);
  return (int)middle(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], 3);
}
// CHECK: copystack: fatal: stack of task {{[0-9]+}} would grow to 16 KiB, over the maximum stack size of 8 KiB, when recurse_forever asked
// CHECK: #0 {{.*}}recurse_forever
// CHECK-NOT: more frames
// CHECK: #{{[0-9]+}} middle at
// CHECK-NEXT: #{{[0-9]+}} main at
// ASM-A64-LABEL: middle:
// ASM-A64-NOT: mov x29, sp
// ASM-A64: bl recurse_forever
// ASM-LABEL: middle:
// ASM-NOT:   movq %rsp, %rbp
// ASM:       callq recurse_forever
