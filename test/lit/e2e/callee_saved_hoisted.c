// At -O2 LLVM computes &a[5] once, before the loop, and keeps it in a
// callee-saved register across the calls. The first call grows the stack;
// the register value saved by the callee's prologue must be rewritten, or
// the loop keeps writing to the freed stack.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
// (Under TSan the hooks around every access change the register choice.)
// RUN: %if x86_64 && O2 && !tsan %{ %cc -S %s -o - | FileCheck %s --check-prefix=ASM %}
// RUN: %if aarch64 && O2 %{ %cc -S %s -o - | FileCheck %s --check-prefix=ASM-A64 %}
#include "Inputs/check.h"

static int grown;

__attribute__((noinline)) void bump(int *p) {
  if (!grown++)
    cs_burn(400); // the first call copies the stack under the loop
  *p += 1;
}

int main(void) {
  int a[10] = {0};
  unsigned long before = cs_copies();
  for (int i = 0; i < 100; i++)
    bump(&a[5]);
  REQUIRE(cs_copies() > before);
  printf("%d %d\n", a[5], a[4]);
  return 0;
}
// CHECK: 100 0
// The property holds at -O0 too; the hoisting is what -O2 does:
// ASM-A64-LABEL: main:
// ASM-A64: mov [[P:x19|x2[0-8]]], sp
// ASM-A64: add x0, [[P]], #20
// ASM-A64-NEXT: bl bump
// ASM-LABEL: main:
// ASM: leaq {{.*}}(%rbp), %r{{bx|12|13|14|15}}
