// A yield at a check parks the task on its stack below __morestack's
// register block: the wide vector registers (ymm0-7 or zmm0-7 on x86-64,
// q8-q31 on AArch64), __copystack_preempt's registers and the park's
// switch frame. __copystack_grow moves the stack to a bigger one when that
// does not fit below the block (arch frames.h, yield_room_bytes). The room
// it reserved was x86-64's (256 bytes besides the wide registers); on
// AArch64 the park takes 336 (a 160-byte preempt frame and a 176-byte
// switch frame), and a task whose check failed with between 640 and 720
// bytes below its block parked across the stack's lowest page: "stack
// overflow: __copystack_switch ran into the page below the stack"
// (cxx_exception_state_per_task.cpp at -O0 in stress mode under qemu).
//
// The monitor's request is what a yield at a check answers; here the task
// makes it itself, storing COPYSTACK_PREEMPT_LIMIT in the limit word
// (abi.h) before a call whose check then fails, at every 16-byte step of
// headroom across a 2 KiB stack: one of them lands in any band too narrow
// for the park.
// Verify mode fences every stack, so the park's first store below it
// faults in every variant (in normal mode it wrote over a neighbour).
// RUN: %cc %s -o %t && %run %t | FileCheck %s
// RUN: env COPYSTACK_VERIFY=1 %run %t | FileCheck %s
// CHECK: yields [[N:[1-9][0-9]*]]
// CHECK: done
#include "Inputs/check.h"

#include <alloca.h>
#include <stdint.h>
#include <string.h>

static void ask_yield(void) {
  if (!copystack_in_task())
    return;
#if defined(__x86_64__)
  __asm__ volatile("movq %0, %%fs:0x70" : : "r"(COPYSTACK_PREEMPT_LIMIT)
                   : "memory");
#elif defined(__aarch64__)
  uint64_t tp;
  __asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
  *(volatile uint64_t *)(tp + 8) = COPYSTACK_PREEMPT_LIMIT;
#endif
}

// Calls something, so it has a check of its own.
__attribute__((noinline)) static int checked(int x) {
  char b[16];
  memset(b, x, sizeof b);
  CS_KEEP(b);
  return b[3] + 1;
}

// Each level of the descent asks for a yield and calls checked().
__attribute__((noinline)) static int descend(int depth) {
  char frame[48];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  ask_yield();
  int r = checked(depth);
  if (depth > 0)
    r += descend(depth - 1);
  return r + frame[0];
}

static long total;

static void run_at(void *arg) {
  size_t pad = (size_t)(uintptr_t)arg;
  char *p = alloca(pad + 16);
  p[0] = 1;
  CS_KEEP(p);
  total += descend(24) + p[0];
}

int main(void) {
  copystack_stats before, after;
  copystack_get_stats(&before);
  for (size_t pad = 0; pad <= 1024; pad += 16) {
    cs_fixed_start(2048);
    if (copystack_in_task())
      copystack_run(run_at, (void *)(uintptr_t)pad);
    else
      run_at((void *)(uintptr_t)pad);
  }
  copystack_get_stats(&after);
  // The plain build has no runtime's counts to show: it prints 1.
  unsigned long yields = (unsigned long)(after.preemptions - before.preemptions);
  printf("yields %lu\n", copystack_in_task() ? yields : 1ul);
  REQUIRE(total != 0);
  printf("done\n");
  return 0;
}
