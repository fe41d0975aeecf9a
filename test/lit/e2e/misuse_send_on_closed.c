// A send on a closed channel stops the program, as in Go: when the channel
// is closed before the send, and when it is closed under a sender waiting.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
// RUN: %exits 2 %run %t waiting 2>&1 | FileCheck %s
#include "Inputs/check.h"

static void sender(void *ch) {
  int v = 1;
  copystack_chan_send(ch, &v); // blocks: nobody receives, then closed
}

int main(int argc, char **argv) {
  (void)argv;
  copystack_chan *ch = copystack_chan_make(sizeof(int), 0);
  if (argc > 1) {
    copystack_go(sender, ch);
    copystack_sleep_ns(5000000);
    copystack_chan_close(ch); // wakes the sender, which finds it closed
    copystack_sleep_ns(1000000000);
  } else {
    copystack_chan_close(ch);
    int v = 1;
    copystack_chan_send(ch, &v);
  }
  printf("not stopped\n");
  return 0;
}
// CHECK: copystack: fatal: send on closed channel
