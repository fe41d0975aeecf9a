// The start size follows the average use seen at collections (Go 1.19),
// and new tasks start at it (COPYSTACK_ADAPTIVE=0: it stays at 2 KiB).
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: env COPYSTACK_ADAPTIVE=0 %run %t | FileCheck %s --check-prefix=NOADAPT
#include "Inputs/lifecycle.h"
#include <string.h>

// Parks under about 6 KiB of frames: 16 levels of 200-byte locals, which
// stay in the frame everywhere (on AArch64 an -O0 frame keeps up to 256
// bytes of locals, an optimized one up to 3 KiB: passes/Policy.h).
__attribute__((noinline)) static void park_in_big_frames(int levels) {
  char big[200];
  memset(big, levels, sizeof big);
  CS_KEEP(big);
  char c;
  if (levels > 0) {
    park_in_big_frames(levels - 1);
  } else {
    copystack_chan_send(done, &c);
    copystack_chan_recv(wake, &c);
  }
  CS_KEEP(big); // live across the call: no tail call
}

static void big_parker(void *arg) {
  (void)arg;
  park_in_big_frames(16);
}

int main(void) {
  lifecycle_setup();
  char c = 1;
  printf("start before: %zu\n", copystack_start_stack());
  for (int i = 0; i < 100; i++) {
    copystack_go(big_parker, 0);
    copystack_chan_recv(done, &c);
  }
  copystack_sleep_ns(2000000);
  copystack_collect();
  printf("start after 100 tasks parked in 6 KB frames: %zu\n",
         copystack_start_stack());
  size_t size = 0;
  copystack_go(report_size, &size);
  copystack_chan_recv(done, &c);
  printf("a new task started at %s the adaptive size\n",
         size >= copystack_start_stack() ? "at least" : "LESS THAN");
  copystack_chan_close(wake);
  return 0;
}
// CHECK: start before: 2048
// CHECK: start after 100 tasks parked in 6 KB frames: 8192
// CHECK: a new task started at at least the adaptive size
// NOADAPT: start before: 2048
// NOADAPT: start after 100 tasks parked in 6 KB frames: 2048
