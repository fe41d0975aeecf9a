// Every instrumented frame is covered by a check: frames from a leaf's
// nothing to 6 KiB, around the guard band's 256-byte budget (200, 248,
// 255, 256, 264 bytes of locals, with and without callee-saved registers
// pushed), in leaves and in functions that call, are either within the
// budget or checked at their real size before they are taken
// (scripts/check-frames reads -fstack-size-section's sizes: LLVM's stack
// probe, or the split-stack prologue's compare of %rsp less the frame).
// On AArch64 every check compares sp after the frame, and the 6,000-byte
// locals live in the pinned area (passes/Policy.h, kUncheckedFrameLocals).
// Then each runs, 300 levels deep, on a 2 KiB stack: the same sums in
// every mode (stress mode moves the stack at every check).
// RUN: %cc -fstack-size-section %s -o %t
// RUN: %check_frames %t
// RUN: %check_frames --verbose %t | FileCheck %s --check-prefix=%if aarch64 %{FRAMES-A64%} %else %{FRAMES%}
// RUN: %run %t | FileCheck %s
#include "Inputs/check.h"

static volatile int sink_value;

// A frame of N bytes of locals that the function writes and reads, in a
// function that calls the next level (non-leaf) or calls nothing (leaf).
#define LEVEL(N)                                                               \
  __attribute__((noinline)) static int leaf_##N(int seed) {                    \
    volatile unsigned char buf[N];                                             \
    for (int i = 0; i < N; i += 7)                                             \
      buf[i] = (unsigned char)(seed + i);                                      \
    int sum = 0;                                                               \
    for (int i = 0; i < N; i += 7)                                             \
      sum += buf[i];                                                           \
    return sum;                                                                \
  }                                                                            \
  __attribute__((noinline)) static int call_##N(int depth, int seed) {        \
    volatile unsigned char buf[N];                                             \
    for (int i = 0; i < N; i += 13)                                            \
      buf[i] = (unsigned char)(seed * 3 + i);                                  \
    int sum = depth > 0 ? call_##N(depth - 1, seed + 1) : leaf_##N(seed);     \
    for (int i = 0; i < N; i += 13)                                            \
      sum += buf[i];                                                           \
    return sum;                                                                \
  }

LEVEL(1)
LEVEL(200)
LEVEL(248)
LEVEL(255)
LEVEL(256)
LEVEL(264)
LEVEL(1000)
LEVEL(6000)

// Several values live across the call: callee-saved registers pushed on
// top of a frame near the budget. It reads back an element it wrote (one
// it did not would be whatever the stack held: plain builds differ there).
__attribute__((noinline)) static long pushes_240(int depth, long a, long b,
                                                 long c, long d, long e) {
  volatile unsigned char buf[240];
  for (int i = 0; i < 240; i += 5)
    buf[i] = (unsigned char)(a + i);
  long r = depth > 0 ? pushes_240(depth - 1, b, c, d, e, a + 1) : 0;
  return r + a * 3 + b * 5 + c * 7 + d * 11 + e * 13 + buf[depth % 48 * 5];
}

int main(void) {
  long total = 0;
  total += call_1(300, 1);
  total += call_200(300, 2);
  total += call_248(300, 3);
  total += call_255(300, 4);
  total += call_256(300, 5);
  total += call_264(300, 6);
  total += call_1000(300, 7);
  total += call_6000(100, 8);
  total += pushes_240(300, 1, 2, 3, 4, 5);
  sink_value = (int)total;
  printf("total %ld\n", total);
  return 0;
}
// FRAMES-DAG: call_6000: {{[0-9]+}} bytes: {{the stack probe checks it|the prologue compares}}
// FRAMES-DAG: leaf_6000: {{[0-9]+}} bytes: {{the stack probe checks it|the prologue compares}}
// FRAMES-DAG: leaf_1: {{[0-9]+}} bytes: within the budget
// FRAMES-A64-DAG: call_6000: {{[0-9][0-9]?[0-9]?}} bytes: the own check compares sp after the frame
// FRAMES-A64-DAG: leaf_6000: {{[0-9][0-9]?[0-9]?}} bytes: the own check compares sp after the frame
// FRAMES-A64-DAG: call_1000: {{[0-9]+}} bytes: the own check compares sp after the frame
// CHECK: total 13245523
