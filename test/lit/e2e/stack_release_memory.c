// The stacks of finished tasks go back to the OS at a collection.
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/lifecycle.h"

__attribute__((noinline)) static int deep_then_wait(int depth) {
  char frame[128];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth == 0) {
    char c = 1;
    copystack_chan_send(done, &c);
    copystack_chan_recv(wake, &c); // closed: returns at once
    return 0;
  }
  return deep_then_wait(depth - 1) + frame[0];
}

static void deep_and_gone(void *arg) {
  (void)arg;
  deep_then_wait(500); // about 80 KiB: a 128 KiB stack
}

int main(void) {
  lifecycle_setup();
  char c = 1;
  // 50 tasks grow deep and wait; then they finish and a collection gives
  // their stacks back (verify mode gives each back as it is released).
  copystack_stats start, peak, after;
  copystack_get_stats(&start);
  for (int i = 0; i < 50; i++)
    copystack_go(deep_and_gone, 0);
  for (int i = 0; i < 50; i++)
    copystack_chan_recv(done, &c);
  copystack_get_stats(&peak);
  copystack_chan_close(wake); // they return
  while (copystack_num_tasks() > 1)
    copystack_yield();
  copystack_collect();
  copystack_get_stats(&after);
  printf("released: %s, OS memory for stacks fell: %s\n",
         after.stack_released >= start.stack_released + 50 * 65536 ? "yes"
                                                                   : "NO",
         after.stack_sys + 50 * 65536 <= peak.stack_sys ? "yes" : "NO");
  return 0;
}
// CHECK: released: yes, OS memory for stacks fell: yes
