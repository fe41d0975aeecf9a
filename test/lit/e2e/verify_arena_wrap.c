// Verify mode hands out stack addresses in order and fences what a task
// leaves; in a long stress run (a copy per call) of a task whose stack grew
// large, it wraps around to the start of its arena and goes past the stacks
// still live there, instead of running out (found in tinyxml2's and
// pugixml's test suites under stress + verify). A 2 GiB arena here wraps
// after about 2,000 copies of the 512 KiB stack. Stale pointers keep
// faulting after a wrap: the test reads through one at the end and verify
// mode names it.
// RUN: %cc %s -o %t
// REQUIRES: verify
// RUN: %exits 2 env COPYSTACK_VERIFY_ARENA_GIB=2 %run %t > %t.out 2>&1
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"

#include <stdint.h>
#include <string.h>

__attribute__((noinline)) static int deep(int n) {
  volatile char pad[1000];
  memset((char *)pad, n, sizeof pad);
  if (n == 0)
    return 0;
  int r = deep(n - 1);
  return pad[r & 511] & 1;
}
__attribute__((noinline)) static int leaf(int i) { return i & 1; }

#include "Inputs/stale.h"

int main(void) {
  int s = deep(400); // the stack grows to 512 KiB
  int calls = getenv("COPYSTACK_STRESS") ? 6000 : 10;
  for (int i = 0; i < calls; i++)
    s += leaf(i);
  int anchor = 42;
  int *volatile p = &anchor;
  printf("done %d, anchor %d\n", s > 0, *p);
  fflush(stdout);
  // CHECK: done 1, anchor 42
  // A copy of &anchor's bits, taken before the stack moves again (stress
  // mode: at the next call; otherwise by growing past 512 KiB): verify mode
  // fences what the task left, after wrapping too.
  volatile uintptr_t stale = 0;
  COPY_BITS(stale, p);
  cs_burn(4000);
  printf("stale read %d\n", *(volatile int *)stale);
  // CHECK: copystack: fatal: verify: {{.*}} used a pointer the relocation missed
  // CHECK-NOT: stale read
  return 0;
}
