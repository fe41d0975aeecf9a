// The rest of C on copyable stacks, each across stack copies: thread-local
// variables, inline asm with pointer operands (compiles, not a safepoint),
// computed goto, musttail recursion, a local aligned to 64 bytes (pinned:
// no realigned frames), variable-length arrays and alloca(n) (pinned, given
// back at the end of their scope), and a struct of pointers by value.
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include <alloca.h>
#include <stdalign.h>
#include <string.h>

static _Thread_local int tls_counter;
static _Thread_local int *tls_ptr;

__attribute__((noinline)) static int use_tls(int depth) {
  tls_counter += depth;
  cs_burn(50);
  return tls_counter + *tls_ptr;
}

__attribute__((noinline)) static int asm_add(int *p, int v) {
  int local = v;
#if defined(__aarch64__)
  __asm__("ldr w9, %0\n\tadd w9, w9, %w1\n\tstr w9, %0"
          : "+m"(*p)
          : "r"(local)
          : "w9");
#else
  __asm__("addl %1, %0" : "+m"(*p) : "r"(local));
#endif
  cs_burn(20);
  return *p;
}

// A tiny interpreter with computed goto.
__attribute__((noinline)) static int run(const unsigned char *code, int depth) {
  static void *ops[] = {&&op_add, &&op_burn, &&op_halt};
  int acc = 0;
  const unsigned char *pc = code;
#define NEXT goto *ops[*pc++]
  NEXT;
op_add:
  acc += *pc++;
  NEXT;
op_burn:
  acc += cs_burn(depth) * 0;
  NEXT;
op_halt:
  return acc;
}

__attribute__((noinline)) static long countdown(long n, long acc, int *cell) {
  char frame[64];
  CS_KEEP(frame);
  if (n == 0)
    return acc + *cell;
  if (n % 100 == 0)
    cs_burn(10);
  __attribute__((musttail)) return countdown(n - 1, acc + n, cell);
}

__attribute__((noinline)) static int aligned_local(void) {
  alignas(64) char block[128];
  memset(block, 3, sizeof block);
  int *p = (int *)block;
  cs_burn(400);
  return ((uintptr_t)block % 64 == 0) + p[5];
}

__attribute__((noinline)) static long vla_sum(int n) {
  long total = 0;
  for (int round = 0; round < 3; round++) {
    int vla[n];
    for (int i = 0; i < n; i++)
      vla[i] = i + round;
    int *walk = vla;
    cs_burn(n);
    for (int i = 0; i < n; i++)
      total += walk[i];
  }
  char *buf = alloca(n);
  memset(buf, 1, n);
  cs_burn(100);
  return total + buf[n - 1];
}

struct holder {
  int *a, *b;
  long pad[6];
};

__attribute__((noinline)) static int by_value(struct holder h) {
  cs_burn(300);
  return *h.a + *h.b + (int)h.pad[5];
}

int main(void) {
  int anchor = 5;
  tls_ptr = &anchor;
  printf("tls %d\n", use_tls(10) + use_tls(20));
  int cell = 1;
  printf("asm %d\n", asm_add(&cell, 41));
  unsigned char code[] = {0, 3, 1, 0, 4, 1, 2};
  printf("goto %d\n", run(code, 300));
  printf("musttail %ld\n", countdown(1000, 0, &anchor));
  printf("aligned %d\n", aligned_local());
  printf("vla %ld\n", vla_sum(200));
  int x = 10, y = 20;
  struct holder h = {&x, &y, {0, 0, 0, 0, 0, 7}};
  printf("byval %d\n", by_value(h));
  return 0;
}
// CHECK: tls 50
// CHECK: asm 42
// CHECK: goto 7
// CHECK: musttail 500505
// CHECK: aligned 50529028
// CHECK: vla 60301
// CHECK: byval 37
