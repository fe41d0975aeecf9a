// A leaf whose frame is spills: 160 values read one by one (volatile
// loads keep their order) and all live until the sum that pairs the first
// with the last, more than any register file holds, so that the register
// allocator spills some 1,000 bytes of them at -O2 while the function
// has no local of its own. It calls nothing, so no check is needed for
// its calls; its frame alone outgrows the budget below a checked caller's.
// On x86-64 LLVM's stack probe checks such a frame before it is taken; on
// AArch64 the pass estimates a leaf's register pressure and checks a leaf
// that may spill past the budget (passes/Attributes.cpp,
// leafMayOutgrowBudget). Run at every depth of a recursion on a fresh
// 2 KiB task: without the check, the spills land below the stack.
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t
// RUN: %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"

#define N 160
static volatile long va[N];

#define L(i) long v##i = va[i];
#define L10(i)                                                                 \
  L(i##0) L(i##1) L(i##2) L(i##3) L(i##4) L(i##5) L(i##6) L(i##7) L(i##8)      \
      L(i##9)
#define P(i, j) s += v##i * (v##j + 1);

__attribute__((noinline)) static long pressure(void) {
  L(0) L(1) L(2) L(3) L(4) L(5) L(6) L(7) L(8) L(9)
  L10(1) L10(2) L10(3) L10(4) L10(5) L10(6) L10(7) L10(8) L10(9) L10(10)
  L10(11) L10(12) L10(13) L10(14) L10(15)
  long s = 0;
#include "Inputs/leaf_register_pressure_pairs.h"
  return s;
}

__attribute__((noinline)) static long descend(int depth) {
  long mine = depth;
  CS_KEEP(&mine);
  if (depth == 0)
    return pressure();
  return descend(depth - 1) + mine;
}

static long result;
static void run(void *arg) { result = descend((int)(long)arg); }

int main(void) {
  for (int i = 0; i < N; i++)
    va[i] = i * 7 + 1;
  for (long depth = 0; depth < 40; depth++) {
    cs_fresh_task_any(run, (void *)depth);
    printf("depth %ld: %ld\n", depth, result);
  }
  printf("done\n");
  return 0;
}
// CHECK: depth 0:
// CHECK: depth 39:
// CHECK: done
