// Crossing the maximum stack size stops the program with a message that
// names the limit and the function: never a SIGSEGV.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
// RUN: %exits 2 env COPYSTACK_MAX_STACK=256K %run %t env 2>&1 | FileCheck %s --check-prefix=ENV
#include "Inputs/check.h"
#include <string.h>

__attribute__((noinline)) static int recurse_forever(int depth) {
  char frame[1000];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  return recurse_forever(depth + 1) + frame[0];
}

int main(int argc, char **argv) {
  if (argc < 2)
    copystack_set_max_stack(64 << 10);
  printf("max %zu\n", copystack_max_stack());
  fflush(stdout);
  return recurse_forever(0);
}
// CHECK: max 65536
// CHECK: copystack: fatal: stack of task {{[0-9]+}} would grow to 128 KiB, over the maximum stack size of 64 KiB, when recurse_forever asked for a {{[0-9]+}}-byte frame
// ENV: max 262144
// ENV: over the maximum stack size of 256 KiB, when recurse_forever asked
