// Code built without the plugin runs on the thread's own stack: printf and
// snprintf (which need far more than the 928-byte guard) work from a task
// at any depth, snprintf writes into a local buffer on the task stack, and
// qsort calls back into instrumented code that grows its own stack... on
// the thread's stack, where it never moves.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"
#include <string.h>

static int cmp(const void *a, const void *b) {
  cs_burn(50); // instrumented code called back from libc
  return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int at_depth(int depth) {
  char keep[64];
  CS_KEEP(keep);
  if (depth > 0)
    return at_depth(depth - 1) + keep[0] * 0;
  char buf[64];
  int n = snprintf(buf, sizeof buf, "%s-%d-%.1f", "deep", 42, 2.5);
  printf("%s %d\n", buf, n);
  int v[6] = {5, 3, 6, 1, 4, 2};
  qsort(v, 6, sizeof v[0], cmp);
  printf("%d%d%d%d%d%d %zu\n", v[0], v[1], v[2], v[3], v[4], v[5],
         strlen(buf));
  return 0;
}

int main(void) {
  at_depth(0);
  at_depth(1000);
  REQUIRE(cs_copies() > 0);
  return 0;
}
// CHECK: deep-42-2.5 11
// CHECK-NEXT: 123456 11
// CHECK-NEXT: deep-42-2.5 11
// CHECK-NEXT: 123456 11
