// Variable-length arrays and alloca(n) live in the pinned area at every -O
// level (at -O0 clang keeps the saved stack pointer in a local): a VLA
// function is instrumented, its recursion grows the copyable stack, it can
// block, and a VLA in a loop gives its bytes back at the end of each
// iteration. No function of this file runs on the thread's stack.
// RUN: %cc -Werror %s -o %t
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include <alloca.h>
#include <string.h>

// Deep recursion, each frame with a VLA and a pointer into it that must
// survive the copies below.
__attribute__((noinline)) static long vla_deep(int n) {
  long buf[n % 7 + 2];
  long *p = &buf[1];
  for (int i = 0; i < n % 7 + 2; i++)
    buf[i] = n;
  if (n == 0)
    return *p;
  return vla_deep(n - 1) + *p;
}

// A VLA per loop iteration: its scope ends each time round.
__attribute__((noinline)) static long vla_loop(int n) {
  long s = 0;
  for (int i = 1; i <= n; i++) {
    char tmp[i * 64];
    memset(tmp, i, sizeof tmp);
    cs_burn(i);
    s += tmp[i * 64 - 1];
  }
  return s;
}

// alloca(n) and a blocking call: a task parks inside the function.
__attribute__((noinline)) static long alloca_block(copystack_chan *c, int n) {
  long *v = alloca(n * sizeof(long));
  for (int i = 0; i < n; i++)
    v[i] = i;
  long got = 0;
  if (c)
    copystack_chan_recv(c, &got);
  cs_burn(50);
  long s = got;
  for (int i = 0; i < n; i++)
    s += v[i];
  return s;
}

static copystack_chan *ch;
static long sent = 1000;
static void sender(void *arg) { copystack_chan_send(ch, &sent); }

static long result;
static void run_deep(void *arg) { result = vla_deep(2000); }
static void run_loop(void *arg) { result = vla_loop(60); }

int main(void) {
  cs_fresh_task(run_deep, 0);
  printf("deep: %ld\n", result);
  cs_fresh_task(run_loop, 0);
  printf("loop: %ld\n", result);
  if (copystack_in_task()) {
    ch = copystack_chan_make(sizeof(long), 0);
    copystack_go(sender, 0);
  }
  printf("blocking: %ld\n", alloca_block(ch, 100) + (ch ? 0 : 1000));
  return 0;
}
// CHECK: deep: 2001000
// CHECK: loop: 1830
// CHECK: blocking: 5950
