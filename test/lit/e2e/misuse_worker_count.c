// A worker count out of range stops the program with the accepted range,
// from the API and from the environment.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
// RUN: %exits 2 env COPYSTACK_WORKERS=0 %run %t go 2>&1 | FileCheck %s --check-prefix=ENV
#include "Inputs/check.h"

static void nothing(void *arg) { (void)arg; }

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 1)
    copystack_go(nothing, 0); // starts the scheduler
  else
    copystack_set_workers(0);
  printf("not stopped\n");
  return 0;
}
// CHECK: copystack: fatal: copystack_set_workers(0): from 1 to 1024 workers
// ENV: copystack: fatal: COPYSTACK_WORKERS=0: expected a number of workers from 1 to 1024
