// Under the own prologue a function whose every call goes to a function
// that checks goes without a check of its own (abi.h,
// COPYSTACK_ELIDED_FRAME): `outer` here, whose callee `inner` checks (its
// locals keep it). Its frame is the one unchecked frame the guard band's
// budget allows between two checks (scripts/check-frames proves it on the
// build), and the stack moves under it: it keeps a pointer into its
// caller's frame (`slot`) and other values in callee-saved registers
// across a call that grows the stack (every call, in stress mode), and
// writes through the pointer after. 400 levels from a 2 KiB stack: the
// same sums in every mode and prologue as plain clang's. (At -O0 the
// arguments' slots are locals enough to keep the check.)
// REQUIRES: x86_64
// RUN: %cc -fstack-size-section %s -o %t
// RUN: %check_frames %t
// RUN: %if own-prologue && O2 && !tsan && !ubsan %{ %check_frames --verbose %t | FileCheck %s --check-prefix=FRAMES %}
// RUN: %run %t | FileCheck %s
#include "Inputs/check.h"

static volatile long sink;

__attribute__((noinline)) static long outer(int depth, long *slot, long a,
                                            long b, long c);

__attribute__((noinline)) static long inner(int depth, long *up, long seed) {
  volatile unsigned char buf[200];
  long mine = seed;
  for (int i = 0; i < 200; ++i)
    buf[i] = (unsigned char)(seed + i);
  long r = depth > 0 ? outer(depth - 1, &mine, seed + 1, seed * 2, seed ^ 5)
                     : *up;
  return r + mine + buf[depth % 200] + *up;
}

__attribute__((noinline)) static long outer(int depth, long *slot, long a,
                                            long b, long c) {
  long x = inner(depth, slot, a);
  *slot += x & 0xff;
  long y = inner(0, slot, b + c);
  *slot ^= y & 0xf;
  return x + y * 3 + a + b + c;
}

static void run(void *arg) {
  long base = 7;
  long total = outer(400, &base, 1, 2, 3);
  sink = total;
  printf("total %ld base %ld\n", total, base);
  *(long *)arg = total;
}

int main(void) {
  long in_task = 0;
  // A fresh 2 KiB stack: the first levels grow it.
  cs_fresh_task(run, &in_task);
  long base = 7;
  long in_main = outer(400, &base, 1, 2, 3);
  printf("same: %s\n", in_main == in_task ? "yes" : "no");
  return 0;
}
// FRAMES: outer: no check; calls only functions that check
// CHECK: total 2274101 base 34
// CHECK-NEXT: same: yes
