// Under ThreadSanitizer a fatal error ends the program as without it (the
// message, the dump, exit status 2) from wherever it happens: in a foreign
// call (closing a closed channel) and in the runtime's own bookkeeping,
// which TSan does not watch (a growth over the maximum stack size). TSan
// neither reports a thread that ended while ignoring accesses nor changes
// the exit status.
// RUN: %cc -fsanitize=thread %s -o %t
// RUN: %exits 2 %run %t close 2>&1 | FileCheck %s --check-prefix=CLOSE --implicit-check-not=ThreadSanitizer
// RUN: %exits 2 env COPYSTACK_MAX_STACK=64K %run %t deep 2>&1 | FileCheck %s --check-prefix=DEEP --implicit-check-not=ThreadSanitizer
#include "Inputs/check.h"
#include <string.h>

__attribute__((noinline)) static int recurse(int n) {
  char frame[256];
  frame[0] = (char)n;
  CS_KEEP(frame);
  return recurse(n + 1) + frame[0];
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  if (!strcmp(argv[1], "close")) {
    copystack_chan *ch = copystack_chan_make(sizeof(int), 0);
    copystack_chan_close(ch);
    copystack_chan_close(ch);
  } else {
    recurse(0);
  }
  printf("not reached\n");
  return 0;
}
// CLOSE: copystack: fatal: close of closed channel
// DEEP: over the maximum stack size of 64 KiB
// REQUIRES: san-thread
