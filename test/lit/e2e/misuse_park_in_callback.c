// A task cannot park from code running on the thread's own stack (a
// callback qsort calls, which is not instrumented): the program stops and
// says so.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"
#include <stdlib.h>

static copystack_chan *ch;

static int compare_and_block(const void *a, const void *b) {
  // Called by qsort, which is not instrumented: this runs on the thread's
  // own stack, where a task cannot park.
  int v;
  copystack_chan_recv(ch, &v);
  return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv) {
  (void)argv;
  ch = copystack_chan_make(sizeof(int), 0);
  int xs[3] = {3, 1, 2};
  qsort(xs, 3, sizeof xs[0], compare_and_block);
  printf("not stopped\n");
  return 0;
}
// CHECK: copystack: fatal: a task tried to park {{.*}} from code running on the thread's own stack
