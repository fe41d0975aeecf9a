// Nothing the backend stores before a check lands below the stack. On
// AArch64 the check runs after the frame is set up, and -O0's register
// allocator spills what instruction selection defines at the entry (the
// arguments, locals' addresses, constants) where it is defined: before the
// check, at the frame's bottom. With 1.5 KiB of locals entered a little
// above the limit, that was below the stack: a fault in verify mode, and
// otherwise a value lost at the growth (place_block reads that part as
// never written) or written over another task's stack. The arguments now
// pass through the check (aarch64_check_carries_arguments.ll), and an -O0
// function with more than 256 bytes of locals keeps them in the pinned
// area (passes/Policy.h, kO0FrameLocals). scripts/check-frames finds a
// store before the check deeper than the guard band on compiled code.
// Found by csmith under qemu (43 of 100 programs at -O0).
// RUN: %cc -fstack-size-section %s -o %t
// RUN: %check_frames %t
// RUN: %run %t | FileCheck %s
// RUN: env COPYSTACK_VERIFY=1 %run %t | FileCheck %s
// CHECK: depths 32, sums ok
#include "Inputs/check.h"

#include <stdint.h>

__attribute__((noinline)) static int big(int a, long b) {
  volatile char buf[1500];
  buf[a] = (char)b;
  buf[a + 700] = (char)(b + 1);
  return buf[a] + buf[a + 700] + a;
}

__attribute__((noinline)) static long down(int d, int i) {
  if (d == 0)
    return big(i % 100, i);
  long r = down(d - 1, i);
  __asm__ volatile("" : "+r"(r));
  return r + 1;
}

static long sum;

static void at_depth(void *arg) {
  int d = (int)(uintptr_t)arg;
  sum += down(d, 7) - d - (7 + 8 + 7);
}

int main(void) {
  int depths = 0;
  for (int d = 0; d < 32; d++, depths++) {
    cs_fixed_start(2048);
    if (copystack_in_task())
      copystack_run(at_depth, (void *)(uintptr_t)d);
    else
      at_depth((void *)(uintptr_t)d);
  }
  printf("depths %d, sums %s\n", depths, sum == 0 ? "ok" : "WRONG");
  return 0;
}
