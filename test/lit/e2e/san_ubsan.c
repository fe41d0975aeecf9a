// UndefinedBehaviorSanitizer in tasks: its handlers run (on the thread's
// stack, as foreign calls) and report with the task's frames, from main and
// from a task whose stack has grown, and the program goes on; with
// -fsanitize=undefined the task primitives work (C's -fsanitize=function
// checks indirect calls through copystack's prefix). Trapping mode works
// too, and so does -fsanitize=kcfi, whose type hash is in the prefix too.
// RUN: %cc -fsanitize=undefined %s -o %t
// RUN: %run %t 2>&1 | FileCheck %s
// RUN: %cc -fsanitize=undefined -fsanitize-trap=undefined %s -o %t.trap
// RUN: %run %t.trap ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: not --crash %run %t.trap 2>&1 | FileCheck %s --check-prefix=TRAP
// RUN: %cc -fsanitize=kcfi %s -o %t.kcfi
// RUN: %run %t.kcfi ok 2>&1 | FileCheck %s --check-prefix=OK
#include "Inputs/check.h"
#include <limits.h>
#include <string.h>

static volatile int big = INT_MAX;
static volatile int shift = 40;

__attribute__((noinline)) static int overflow(int n) {
  char frame[128];
  CS_KEEP(frame);
  if (n > 0)
    return overflow(n - 1);
  return big + 1; // signed overflow
}

static int twice(int x) { return 2 * x; }
static int (*volatile fp)(int) = twice;

static void task(void *arg) {
  copystack_chan *c = arg;
  cs_burn(100);
  int r = overflow(30);
  r += 1 << shift; // shift exponent too large
  r += fp(3);
  copystack_chan_send(c, &r);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "ok")) {
    printf("ok %d\n", fp(21));
    return 0;
  }
  copystack_chan *c = copystack_chan_make(sizeof(int), 0);
  copystack_go(task, c);
  int r;
  copystack_chan_recv(c, &r);
  printf("main %d\n", fp(r));
  printf("done\n");
  return 0;
}
// CHECK: san_ubsan.c:26:{{[0-9]+}}: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'
// CHECK: san_ubsan.c:36:{{[0-9]+}}: runtime error: shift exponent 40 is too large for 32-bit type 'int'
// CHECK: done
// OK: ok 42
// TRAP-NOT: done
// REQUIRES: san-undefined
