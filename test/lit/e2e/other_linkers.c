// The maps and prologues survive gold and lld as well as GNU ld. gold and
// lld rewrite split-stack prologues that call code without split-stack
// notes; __morestack then returns at once when no task runs.
// The numbers of copies are those of a plain build's frames; UBSan's
// checks make -O0 frames larger.
// UNSUPPORTED: ubsan && O0
// RUN: %cc -fuse-ld=gold %s -o %t.gold && %run %t.gold | FileCheck %s
// RUN: %cc -fuse-ld=lld %s -o %t.lld && %run %t.lld | FileCheck %s
#include "Inputs/check.h"
#include <string.h>

__attribute__((noinline)) static int walk(int depth, int *anchor) {
  char frame[128];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth == 0)
    return *anchor + (int)strlen("x") - 1;
  return walk(depth - 1, anchor) + frame[0] - (char)depth;
}

int main(void) {
  int anchor = 42;
  printf("%d\n", walk(2000, &anchor));
  REQUIRE(cs_growths() == 8);
  return 0;
}
// CHECK: 42
