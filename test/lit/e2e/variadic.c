// Variadic functions run on copyable stacks too (LLVM refuses split-stack
// prologues for them: each becomes a shim that only does va_start, and an
// instrumented body). A live va_list survives stack copies: pointers to the
// caller's locals passed in registers and on the stack, read one by one with
// copies in between, a va_copy, a va_list handed to another function that
// grows the stack, and vsnprintf.
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include <stdarg.h>

// Sums n ints reached through pointers, growing the stack between reads.
static long sum_ptrs(int n, ...) {
  va_list ap, again;
  va_start(ap, n);
  va_copy(again, ap);
  long s = 0;
  for (int i = 0; i < n; i++) {
    cs_burn(40 * i); // the stack moves while ap is live
    s += *va_arg(ap, int *);
  }
  va_end(ap);
  long check = 0;
  for (int i = 0; i < n; i++)
    check += *va_arg(again, int *);
  va_end(again);
  return s == check ? s : -1;
}

static long vsum(int n, va_list ap) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    s += *va_arg(ap, long *) * (cs_burn(100) * 0 + 1);
  }
  return s;
}

static long forward(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long s = vsum(n, ap);
  va_end(ap);
  return s;
}

static int format(char *out, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cs_burn(500);
  int r = vsnprintf(out, len, fmt, ap);
  va_end(ap);
  return r;
}

__attribute__((noinline)) static long deep_caller(int depth) {
  int v[12];
  for (int i = 0; i < 12; i++)
    v[i] = i + depth;
  if (depth > 0)
    return deep_caller(depth - 1);
  // Twelve pointer varargs: six in registers, the rest on the stack.
  return sum_ptrs(12, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                  &v[7], &v[8], &v[9], &v[10], &v[11]);
}

int main(void) {
  printf("sum_ptrs %ld\n", deep_caller(50));
  long a = 1, b = 20, c = 300;
  printf("forward %ld\n", forward(3, &a, &b, &c));
  char buf[64], name[16] = "copy";
  format(buf, sizeof buf, "%s %d %s", name, 42, "stack");
  printf("format '%s'\n", buf);
  return 0;
}
// CHECK: sum_ptrs 66
// CHECK: forward 321
// CHECK: format 'copy 42 stack'
