// A program that defines memset itself (a libc, freestanding code). Every
// stack object starts as zeros (passes/StackObjects.h); in such a module
// the zeroing is written out as stores, never as a call to memset: memset's
// own locals would recurse into it at -O0, where FastISel makes a call of
// every memset intrinsic. Objects above the unrolled size get a loop, and
// what they hold still survives the stack's growth.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"
#include <stddef.h>
#include <string.h>

// (It replaces libc's for the whole process, the runtime's calls too.)
void *memset(void *d, int c, size_t n) {
  unsigned char *p = d;
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)c;
  return d;
}

__attribute__((noinline, weak)) void grow(void) { cs_burn(600); }

__attribute__((noinline, weak)) int big_local(int k) {
  char buf[300];
  buf[k] = 7;
  CS_KEEP(buf);
  grow();
  int sum = 0;
  for (int i = 0; i < 300; i++)
    sum += buf[i];
  return sum; // 7: every other byte started as zero
}

static void run(void *arg) {
  (void)arg;
  char small[8];
  memset(small, 'a', 7);
  small[7] = 0;
  printf("%s %d\n", small, big_local(150));
}

int main(void) {
  cs_fresh_task(run, NULL);
  printf("done\n");
  return 0;
}
// CHECK: aaaaaaa 7
// CHECK-NEXT: done
