// Link-time optimization, full and thin: the pass runs in the compile
// step (before the LTO backend, which keeps its prologues and maps), and
// the stack grows through frames the LTO backend optimized.
// RUN: %cc -flto %s %S/Inputs/deep_lib.c -o %t.full
// RUN: %run %t.full | FileCheck %s
// RUN: %cc -flto=thin %s %S/Inputs/deep_lib.c -o %t.thin
// RUN: %run %t.thin | FileCheck %s
#include "Inputs/check.h"

int lib_depth_sum(int depth, int *acc);

int main(void) {
  int acc = 0;
  int r = lib_depth_sum(3000, &acc);
  printf("sum %d acc %d\n", r, acc);
  REQUIRE(cs_growths() >= 8);
  copystack_chan *ch = copystack_chan_make(sizeof(int), 1);
  int v = 5, w = 0;
  copystack_chan_send(ch, &v);
  copystack_chan_recv(ch, &w);
  printf("channel %d\n", w);
  return 0;
}
// CHECK: sum 3000 acc 3000
// CHECK: channel 5
