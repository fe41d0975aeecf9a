// A frame far larger than the guard: a 64 KiB local on a 2 KiB stack. The
// stack doubles until the frame, the frames live and the guard fit: one
// copy, to 128 KiB (what Go does for the same function). On AArch64, where
// the check runs after the frame, locals over 3 KiB live in the task's
// pinned area instead (passes/Policy.h, kUncheckedFrameLocals): no growth.
// RUN: %cc %s -o %t && %run %t | FileCheck %s --check-prefix=%if aarch64 %{PINNED%} %else %{CHECK%}
#include "Inputs/check.h"
#include <string.h>

static size_t new_size;

static void hook(const copystack_growth_event *ev, void *data) {
  if (!ev->forced)
    new_size = ev->new_size;
}

__attribute__((noinline)) static int touch64(int *out) {
  char buf[64 << 10];
  buf[0] = 1;
  buf[sizeof buf - 1] = 2;
  CS_KEEP(buf);
  *out = buf[0] + buf[sizeof buf - 1];
  return 0;
}

int main(void) {
  int r = 0;
  copystack_set_growth_hook(hook, 0);
  touch64(&r);
  printf("result %d, growths %lu, stack %zu\n", r, cs_growths(), new_size);
  return 0;
}
// CHECK: result 3, growths 1, stack 131072
// PINNED: result 3, growths 0, stack 0
