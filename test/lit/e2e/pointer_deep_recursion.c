// A pointer to a local, passed down a recursion deep enough to copy the
// stack nine times (2 KiB to 1 MiB), still reaches the local, and pointers
// live across the recursive call still reach their locals after it.
// The numbers of copies are those of a plain build's frames; UBSan's
// checks make -O0 frames larger.
// UNSUPPORTED: ubsan && O0
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

__attribute__((noinline)) static int walk(int depth, int *anchor, long *sum) {
  char frame[128];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth == 0)
    return *anchor;
  int r = walk(depth - 1, anchor, sum);
  *sum += depth + frame[0] - (char)depth; // sum and frame used after the call
  return r + (*anchor - 42);
}

int main(void) {
  int anchor = 42;
  long sum = 0;
  int r = walk(4096, &anchor, &sum);
  printf("read %d, sum %ld\n", r, sum);
  REQUIRE(cs_growths() == 9);
  return 0;
}
// CHECK: read 42, sum 8390656
