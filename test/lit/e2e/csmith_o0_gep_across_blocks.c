// Found by scripts/csmith-diff (csmith 2.3.0, seed 411, -O0): a struct
// argument read from an array element, a[1], whose address is computed
// (a constant offset from a local) before the next argument's `||` calls a
// function, and read after it in another basic block. At -O0 FastISel
// keeps the address in a virtual register across the blocks and the fast
// register allocator spills it across the call to other(); nothing
// describes that spill slot, so after the stack moves the load reads the
// stack the task left (verify mode: "main ... used a pointer the relocation
// missed"). Fails in the O0 stress variant.
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include <stdio.h>

struct S {
  int x;
};

__attribute__((noinline)) static int use(struct S s, int b) { return s.x + b; }
__attribute__((noinline)) static int other(void) { return 1; }

static int g;

int main(void) {
  struct S a[2] = {{1}, {2}};
  printf("%d\n", use(a[1], g || other()));
  return 0;
}
// CHECK: 3
