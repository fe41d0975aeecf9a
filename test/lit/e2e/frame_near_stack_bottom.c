// A frame bigger than the guard band, taken at every 16-byte step of
// depth on a fresh 2 KiB stack (a recursion of 16-byte frames before it): its check finds the stack pointer well
// above the stack's bottom, just above it, or below it. On AArch64 the
// check runs after the frame is set up and __morestack's 368-byte block
// goes right below that stack pointer (arch/aarch64/frames.cc,
// place_block): on the stack, or through a buffer standing for the used
// part when it would reach below the stack's bottom. A stack pointer less
// than a block above the bottom took the buffer's path as if it were
// below the bottom: a negative length, a crash in memset
// (foreign_call_registers.c at -O0 under qemu). On x86-64 the check runs
// before the frame; the walk and the relocation are the same.
//
// The frame holds a pattern and a pointer to itself, read back after a
// callee grew the stack again. Its address goes to no call, so it stays
// in the frame (a local whose address a call may keep goes to the pinned
// area instead).
// RUN: %cc %s -o %t && %run %t | FileCheck %s
// RUN: env COPYSTACK_VERIFY=1 %run %t | FileCheck %s
// CHECK: depths 65, sums ok
#include "Inputs/check.h"

#include <stdint.h>
#include <string.h>

#define BIG 1200

__attribute__((noinline)) static long big_frame(int seed) {
  volatile unsigned char buf[BIG];
  volatile unsigned char *volatile self = buf;
  long want = 0;
  for (int i = 0; i < BIG; i++) {
    buf[i] = (unsigned char)(i * 7 + seed);
    want += buf[i];
  }
  long got = cs_burn(8) - cs_burn(8); // grows the stack again
  REQUIRE(self == buf);
  for (int i = 0; i < BIG; i++)
    got += self[i];
  return got == want;
}

// Each level takes a 16-byte frame (the return address and the frame
// pointer); the asm after the call keeps it a real recursion.
__attribute__((noinline)) static int step(int n, int seed) {
  if (n == 0)
    return (int)big_frame(seed);
  int r = step(n - 1, seed);
  __asm__ volatile("" : "+r"(r));
  return r;
}

static int ok;

static void at_depth(void *arg) {
  int depth = (int)(uintptr_t)arg;
  ok += step(depth, depth);
}

int main(void) {
  int depths = 0;
  for (int depth = 0; depth <= 64; depth++, depths++) {
    cs_fixed_start(2048);
    if (copystack_in_task())
      copystack_run(at_depth, (void *)(uintptr_t)depth);
    else
      at_depth((void *)(uintptr_t)depth);
  }
  printf("depths %d, sums %s\n", depths, ok == depths ? "ok" : "WRONG");
  return 0;
}
