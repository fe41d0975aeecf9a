// A spawn-time hint starts the task on a stack of at least that size.
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/lifecycle.h"

int main(void) {
  lifecycle_setup();
  char c = 1;
  size_t size = 0;
  copystack_go_sized(report_size, &size, 48 * 1024);
  copystack_chan_recv(done, &c);
  printf("hinted 48K, started at %zu\n", size);
  return 0;
}
// CHECK: hinted 48K, started at 65536
