// A function whose frame is big with spills alone: at -O0 every partial
// sum below lives across the next call and gets a stack slot of its own
// (some 5,600 bytes of them), while its locals stay a few words, so the
// pass keeps it on the task's stack. It runs at every depth of a
// recursion on a fresh 2 KiB task, its check reached with the room left
// anywhere from 2 KiB to nothing. On AArch64 the check runs after the
// frame is set up, so the frame reaches up to some 5 KiB below the stack
// at its check, past the page under it: the runtime reads the function's
// code before the check and finds it stored only at its frame's top
// (arch/aarch64/prologue.h), and the growth goes on. A pointer to its
// caller's local and its arguments carry through.
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t
// RUN: %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"

static volatile long bias = 3;
static volatile long sunk;

__attribute__((noinline)) static long h(const long *p, long n) {
  return *p + n + bias;
}
__attribute__((noinline)) static void sink(long v) { sunk = v; }

#define T(n) h(p, n)
#define ROW(n)                                                                 \
  acc += T(n) + T(n + 1) + T(n + 2) + T(n + 3) + T(n + 4) + T(n + 5) +         \
         T(n + 6) + T(n + 7);                                                  \
  sink(acc);
#define ROW10(n)                                                               \
  ROW(n##0) ROW(n##1) ROW(n##2) ROW(n##3) ROW(n##4) ROW(n##5) ROW(n##6)        \
      ROW(n##7) ROW(n##8) ROW(n##9)

__attribute__((noinline)) static long heavy(const long *p, long k) {
  long acc = k;
  ROW10(1) ROW10(2) ROW10(3) ROW10(4) ROW10(5) ROW10(6) ROW10(7) ROW10(8)
      ROW10(9) ROW10(10)
  return acc;
}

__attribute__((noinline)) static long descend(int depth, const long *p) {
  long mine = *p + depth;
  CS_KEEP(&mine);
  if (depth == 0)
    return heavy(&mine, depth);
  return descend(depth - 1, p) + mine;
}

static long result;

static void run(void *arg) {
  int depth = (int)(long)arg;
  long base = 1000 + depth;
  CS_KEEP(&base);
  result = descend(depth, &base);
}

int main(void) {
  int ran = 0;
  for (long depth = 0; depth < 40; depth++) {
    cs_fresh_task_any(run, (void *)depth);
    printf("depth %ld: %ld\n", depth, result);
    ran++;
  }
  printf("done: %d depths\n", ran);
  return 0;
}
// CHECK: depth 0:
// CHECK: depth 39:
// CHECK: done: 40 depths
