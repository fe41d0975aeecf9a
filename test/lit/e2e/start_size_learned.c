// A spawn site learns the stack size its tasks end with: the next task
// there starts at it and does not grow (COPYSTACK_LEARN=0: every task grows).
// The numbers of copies are those of a plain build's frames; UBSan's
// checks make -O0 frames larger.
// UNSUPPORTED: ubsan && O0
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: env COPYSTACK_LEARN=0 %run %t | FileCheck %s --check-prefix=NOLEARN
#include "Inputs/lifecycle.h"

static void grows_to_32k(void *arg) {
  size_t *sizes = arg;
  *sizes = my_stack_size(); // the size it started with
  cs_burn(150);             // about 24 KiB of frames
  char c = 1;
  copystack_chan_send(done, &c);
}

int main(void) {
  lifecycle_setup();
  char c = 1;
  size_t first = 0, last = 0;
  uint64_t g0 = growths();
  copystack_go(grows_to_32k, &first);
  copystack_chan_recv(done, &c);
  while (copystack_num_tasks() > 1)
    copystack_yield();
  uint64_t g1 = growths();
  for (int i = 0; i < 5; i++) {
    copystack_go(grows_to_32k, &last);
    copystack_chan_recv(done, &c);
    while (copystack_num_tasks() > 1)
      copystack_yield();
  }
  uint64_t g2 = growths();
  printf("first started at %zu, grew %llu times; later ones started at "
         "%zu, grew %llu times\n",
         first, (unsigned long long)(g1 - g0), last,
         (unsigned long long)(g2 - g1));
  return 0;
}
// CHECK: first started at 2048, grew {{[1-9]}} times; later ones started at 32768, grew 0 times
// NOLEARN: first started at 2048, grew [[N:[0-9]+]] times; later ones started at 2048, grew {{[1-9][0-9]*}} times
