// A task dump that starts in a function keeping no frame pointer (a leaf
// that calls nothing: docs/abi.md) still names that function's caller: the
// unwind tables' rule at the interrupted instruction gives its return
// address and the caller's %rbp (the %rbp chain alone would skip from the
// leaf to its caller's caller). Here verify mode's fault on a pointer the
// relocation missed, read in the leaf; in stress mode every call moves the
// stack, so the address of a local taken as bits is stale at once (fenced:
// COPYSTACK_VERIFY_REUSE=0, since stress mode would otherwise reuse it).
// REQUIRES: normal
// RUN: %cc %s -o %t
// RUN: %exits 2 env COPYSTACK_VERIFY=1 COPYSTACK_STRESS=1 COPYSTACK_VERIFY_REUSE=0 %t > %t.out 2>&1
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"

#include <stdint.h>

#include "Inputs/stale.h"

// The address of a local, as bits the relocation cannot see.
__attribute__((noinline)) static uintptr_t where(int i) {
  volatile int x = i;
  int *volatile px = (int *)&x;
  volatile uintptr_t a = 0;
  COPY_BITS(a, px);
  return a;
}

// Calls nothing, has no locals: no frame pointer, no prologue check.
__attribute__((noinline)) static int leaf_load(const volatile int *p) {
  return *p;
}

// The stale address goes to reader through memory: an integer argument
// is a register at reader's stack check, which under the own prologue is
// range-checked as any register (docs/maps.md).
static volatile uintptr_t stale;

__attribute__((noinline)) static int reader(void) {
  int v = leaf_load((const volatile int *)stale);
  printf("read %d\n", v); // a call after the leaf's: reader keeps its frame
  return v;
}

int main(void) {
  stale = where(7);
  printf("not reached: %d\n", reader());
  return 0;
}
// CHECK: verify: {{.*}}leaf_load{{.*}} used a pointer the relocation missed
// CHECK: task 1 [running]:
// CHECK-NEXT: #0 leaf_load at {{.*}}dump_from_leaf.c:{{[0-9]+}}
// CHECK-NEXT: #1 reader at {{.*}}dump_from_leaf.c:{{[0-9]+}}
// CHECK-NEXT: #2 main at {{.*}}dump_from_leaf.c:{{[0-9]+}}
// CHECK-NOT: not reached
