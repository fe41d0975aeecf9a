// Foreign calls pass their arguments in the registers the callee expects
// (docs/abi.md, "Foreign calls"): every System V shape, called from a task
// at depth, directly and through a function pointer (the prefix test),
// with the results checked. Calls that pass something in memory (a long
// double, a seventh integer, a struct by value) go through a thunk and are
// checked the same way. The foreign code keeps 64 KiB of locals: it runs on
// the thread's stack. Callbacks into instrumented code, and instrumented
// code's own pointer to a local passed to foreign code, work too.
// RUN: %host_cc -O2 -c %S/Inputs/foreign_abi.c -o %t.foreign.o
// RUN: %cc %s %t.foreign.o -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"
#include "Inputs/foreign_abi.h"
#include <string.h>

struct pointers {
  long (*six_ints)(long, long, long, long, long, long);
  double (*eight_doubles)(double, double, double, double, double, double,
                          double, double);
  fa_pair (*make_pair)(long, double);
  fa_dpair (*make_dpair)(double);
  fa_lpair (*make_lpair)(long);
  __int128 (*wide)(__int128, long);
  fa_big (*big_ret)(long);
  long (*seven)(long, long, long, long, long, long, long);
  long double (*ld)(long double, int);
  double (*sum_va)(int, ...);
};

static struct pointers *volatile g_ptrs;

static long twice(long x) {
  cs_burn(20); // instrumented code called back from foreign code
  return 2 * x;
}

static void check_all(int round) {
  char local[32];
  memset(local, 0, sizeof local);
  fa_fill(local, 8, 'x'); // a pointer to a task local, in %rdi
  REQUIRE(strcmp(local, "xxxxxxxx") == 0);

  REQUIRE(fa_six_ints(1, 2, 3, 4, 5, 6) == 91);
  REQUIRE(g_ptrs->six_ints(1, 2, 3, 4, 5, 6) == 91);
  REQUIRE(fa_eight_doubles(1, 1, 1, 1, 1, 1, 1, 1) == 36.0);
  REQUIRE(g_ptrs->eight_doubles(1, 2, 3, 4, 5, 6, 7, 8) == 204.0);
  REQUIRE(fa_mixed(1, 2.0, 3, 4.0f, "abcde", 6.0, 7, 8) ==
          1 + 20 + 300 + 4000 + 50000 + 3 + 21 + 40);

  fa_pair p = fa_make_pair(21, 1.25);
  REQUIRE(p.a == 42 && p.b == 2.5);
  p = g_ptrs->make_pair(5, 0.5);
  REQUIRE(p.a == 10 && p.b == 1.0);
  fa_dpair d = g_ptrs->make_dpair(10.0);
  REQUIRE(d.x == 11.0 && d.y == 9.0);
  fa_lpair l = g_ptrs->make_lpair(7);
  REQUIRE(l.a == 21 && l.b == 35);
  __int128 w = g_ptrs->wide((__int128)1 << 70, 5);
  REQUIRE(w == ((__int128)3 << 70) + 5);

  fa_v4f a = {1, 2, 3, 4}, b = {2, 3, 4, 5};
  fa_v4f v = fa_vec(a, b);
  REQUIRE(v[0] == 3 && v[1] == 8 && v[2] == 15 && v[3] == 24);

  fa_big big = g_ptrs->big_ret(10); // returned through memory (sret)
  REQUIRE(big.v[0] == 10 && big.v[4] == 50);
  REQUIRE(fa_big_arg(big, 3) == 10 + 60 + 50); // passed in memory

  REQUIRE(fa_seven(1, 1, 1, 1, 1, 1, 2) == 20);
  REQUIRE(g_ptrs->seven(1, 1, 1, 1, 1, 1, 3) == 27);
  REQUIRE(fa_ld(2.0L, 3) == 6.5L);
  REQUIRE(g_ptrs->ld(1.0L, 4) == 4.5L);

  REQUIRE(fa_sum_va(4, 1L, 2.5, 3L, 4.5) == 11.0);
  REQUIRE(g_ptrs->sum_va(2, 10L, 0.25) == 10.25);
  // Eight doubles and six integers' worth of variadic arguments fill every
  // register; the rest go on the stack, through a thunk.
  REQUIRE(fa_sum_va(12, 1L, 1.0, 1L, 1.0, 1L, 1.0, 1L, 1.0, 1L, 1.0, 1L,
                    1.0) == 12.0);

  REQUIRE(fa_call_back(twice, 20 + round) == 2 * (20 + round) + 2 * (21 + round));
}

static void at_depth(void *arg) {
  int depth = *(int *)arg;
  char keep[96];
  CS_KEEP(keep);
  if (depth > 0) {
    int next = depth - 1;
    at_depth(&next);
    return;
  }
  for (int round = 0; round < 3; round++)
    check_all(round);
}

int main(void) {
  static struct pointers ptrs = {
      fa_six_ints, fa_eight_doubles, fa_make_pair, fa_make_dpair,
      fa_make_lpair, fa_wide, fa_big_ret, fa_seven, fa_ld, fa_sum_va};
  g_ptrs = &ptrs;
  for (int depth = 16; depth < 60; depth += 15)
    cs_fresh_task(at_depth, &depth);
  int depth = 5;
  at_depth(&depth);
  puts("foreign calls ok");
  return 0;
}
// CHECK: foreign calls ok
