// A program that defines memset itself (a libc, freestanding code). Every
// stack object starts as zeros (passes/StackObjects.h); in such a module
// the zeroing is written out as stores, never as a call to memset: memset's
// own locals would recurse into it at -O0, where FastISel makes a call of
// every memset intrinsic. Objects above the unrolled size get a loop, and
// what they hold still survives the stack's growth. A function whose only
// call is one the backend makes of a memset intrinsic keeps its frame
// pointer: that memset is this one, instrumented, and moves the stack
// under it (in stress mode at every call).
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

// 200 bytes: above the 64 written out as stores (MemIntrinsics.cpp), and
// under the 256 of locals beyond which an -O0 frame on AArch64 keeps them
// all in the pinned area (Policy.h kO0FrameLocals), which is not zeroed:
// no word there is ever relocated (docs/maps.md, "The invariant").
__attribute__((noinline, weak)) int big_local(int k) {
  char buf[200];
  buf[k] = 7;
  CS_KEEP(buf);
  grow();
  int sum = 0;
  for (int i = 0; i < 200; i++)
    sum += buf[i];
  return sum; // 7: every other byte started as zero
}

__attribute__((noinline, weak)) char fill(char *p, size_t n, int c) {
  memset(p, c, n); // the intrinsic, a call of a variable size
  return p[n / 2];
}

static void run(void *arg) {
  (void)arg;
  char small[8];
  memset(small, 'a', 7);
  small[7] = 0;
  printf("%s %d\n", small, big_local(150));
  char line[64];
  printf("%c\n", fill(line, 40 + (int)(small[0] & 1), 'b'));
}

int main(void) {
  cs_fresh_task(run, NULL);
  printf("done\n");
  return 0;
}
// CHECK: aaaaaaa 7
// CHECK-NEXT: b
// CHECK-NEXT: done
