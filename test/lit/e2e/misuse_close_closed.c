// Closing a channel twice stops the program, as in Go.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

int main(int argc, char **argv) {
  (void)argv;
  copystack_chan *ch = copystack_chan_make(sizeof(int), 0);
  copystack_chan_close(ch);
  copystack_chan_close(ch);
  printf("not stopped\n");
  return 0;
}
// CHECK: copystack: fatal: close of closed channel
