// A select whose cases can never proceed, and an empty select, are
// deadlocks once nothing else can run.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
// RUN: %exits 2 %run %t empty 2>&1 | FileCheck %s --check-prefix=EMPTY
#include "Inputs/check.h"

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 1) {
    copystack_select(NULL, 0, 1); // Go's select {}
  } else {
    copystack_chan *a = copystack_chan_make(sizeof(int), 0);
    copystack_chan *b = copystack_chan_make(sizeof(int), 0);
    int x = 0, y = 1;
    copystack_select_case cases[2] = {{a, &x, COPYSTACK_RECV, 0},
                                      {b, &y, COPYSTACK_SEND, 0}};
    copystack_select(cases, 2, 1);
  }
  printf("not reached\n");
  return 0;
}
// CHECK: fatal error: all tasks are asleep - deadlock!
// CHECK: task 1 [select, {{[0-9]+}} {{ms|s}}]:
// EMPTY: fatal error: all tasks are asleep - deadlock!
// EMPTY: task 1 [select (no cases), {{[0-9]+}} {{ms|s}}]:
