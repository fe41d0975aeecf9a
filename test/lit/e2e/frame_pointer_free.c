// Functions whose frame maps describe no locals keep no frame pointer (as
// plain clang -O2 builds them): the runtime walks them by the unwind
// tables' CFA rules, and follows %rbp through them to the frames that keep
// one. Here `middle` holds six pointers into main's frame in callee-saved
// registers, %rbp among them, across a call that copies the stack; a
// frame pointer would leave it five. Each pointer must be rewritten where
// the callee saved it, and the walk must reach main's frame through
// `middle`, whose %rbp is no frame pointer (verify mode checks that every
// word of the stack was in a frame the walk found).
// On AArch64, which keeps frame records by default, built with
// -fomit-frame-pointer: there `middle` keeps the pointers in x19-x28 and
// saves no x29.
// RUN: %cc %if aarch64 %{ -fomit-frame-pointer %} %s -o %t && %run %t | FileCheck %s
// RUN: %if x86_64 && O2 && !tsan && !ubsan %{ %cc -S %s -o - | FileCheck %s --check-prefix=ASM %}
// RUN: %if aarch64 && O2 %{ %cc -fomit-frame-pointer -S %s -o - | FileCheck %s --check-prefix=ASM-A64 %}
#include "Inputs/check.h"

static int grown;

__attribute__((noinline)) void grow(void) {
  if (!grown++)
    cs_burn(2000); // the first call copies the stack under middle and main
}

__attribute__((noinline)) long middle(long *a, long *b, long *c, long *d,
                                      long *e, long *f, int n) {
  long sum = 0;
  for (int i = 0; i < n; i++) {
    grow();
    *a += 1, *b += 2, *c += 3, *d += 4, *e += 5, *f += 6;
    sum += *a;
  }
  return sum;
}

int main(void) {
  long v[6] = {0};
  unsigned long before = cs_copies();
  long s = middle(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], 10);
  REQUIRE(cs_copies() > before);
  printf("%ld %ld %ld %ld %ld %ld %ld\n", s, v[0], v[1], v[2], v[3], v[4],
         v[5]);
  return 0;
}
// CHECK: 55 10 20 30 40 50 60
// ASM-A64-LABEL: middle:
// ASM-A64-NOT: x29
// ASM-A64: bl grow
// ASM-A64-NOT: x29
// ASM-A64: .cfi_endproc
// ASM-LABEL: middle:
// ASM-NOT:   movq %rsp, %rbp
// ASM:       pushq %rbp
// ASM-NOT:   movq %rsp, %rbp
// ASM:       callq grow
// ASM-LABEL: main:
// ASM:       movq %rsp, %rbp
