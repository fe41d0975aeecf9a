// A by-value struct larger than 16 bytes arrives as a copy the caller made
// in its outgoing-argument area, on the caller's copyable stack. When its
// address escapes (into a local that is kept, through another function
// that keeps it, or as an integer), the callee moves its copy off the stack
// at entry, as Go moves an escaping parameter to the heap, so that the
// kept pointer survives every copy. Without that, the kept pointer goes on
// pointing into the abandoned stack: in normal mode a silent wrong result
// (writes land in the old stack), in verify mode a fault. Each case runs
// on a fresh 2 KiB task, so the stack really grows in normal mode.
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t
// RUN: %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include <stdint.h>

struct big { long a, b, c, d, e, f, g; };
struct holder { struct big *p; };

static void *volatile kept;
__attribute__((noinline)) static void keep(void *p) { kept = p; }

// The shape fmt's tm_writer has: a helper object that keeps a reference
// to the by-value argument and escapes.
__attribute__((noinline)) static long held(struct big t) {
  struct holder h = {&t};
  keep(&h);
  cs_burn(300);
  h.p->a = 100;
  return t.a + ((struct holder *)kept)->p->b;
}

// Kept by another function: the argument's address is passed on.
__attribute__((noinline)) static void remember(struct big *p) { keep(p); }
__attribute__((noinline)) static long passed_on(struct big t) {
  remember(&t);
  cs_burn(300);
  ((struct big *)kept)->c = 7;
  return t.c;
}

// Kept as an integer.
static volatile uintptr_t as_int;
__attribute__((noinline)) static long as_integer(struct big t) {
  as_int = (uintptr_t)&t;
  cs_burn(300);
  ((struct big *)as_int)->d += 1;
  return t.d;
}

// Not escaping: stays where the caller put it, relocated like an object
// of the frame.
__attribute__((noinline)) static long stays(struct big t) {
  struct big *volatile p = &t;
  cs_burn(300);
  p->e += 1;
  return p->e + t.e;
}

// Many frames deep, each holding its own argument.
__attribute__((noinline)) static long chain(struct big t, int n) {
  struct holder h = {&t};
  keep(&h);
  if (n > 0)
    t.g += chain(t, n - 1);
  cs_burn(20);
  return h.p->g;
}

static struct big b = {40, 2, 3, 4, 5, 6, 1};
static long result;
static void run_held(void *arg) { result = held(b); }
static void run_passed_on(void *arg) { result = passed_on(b); }
static void run_as_integer(void *arg) { result = as_integer(b); }
static void run_stays(void *arg) { result = stays(b); }
static void run_chain(void *arg) { result = chain(b, 30); }

#define CASE(name)                                                             \
  do {                                                                         \
    cs_fresh_task(run_##name, 0);                                              \
    printf(#name ": %ld\n", result);                                            \
  } while (0)

int main(void) {
  CASE(held);
  CASE(passed_on);
  CASE(as_integer);
  CASE(stays);
  CASE(chain);
  return 0;
}
// CHECK: held: 102
// CHECK: passed_on: 7
// CHECK: as_integer: 5
// CHECK: stays: 12
// CHECK: chain: 31
