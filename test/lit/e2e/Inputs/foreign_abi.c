/* Foreign code for foreign_call_registers.c: built with plain clang, so
 * every call to it from a task goes through the foreign-call trampoline.
 * Each function mixes its arguments so that a wrong or moved register
 * shows in the result, and keeps 64 KiB of locals: run on a task's stack
 * it would write far below it. */
#include <stdarg.h>
#include <string.h>

#include "foreign_abi.h"

static long touch_stack(long seed) {
  volatile char big[64 << 10];
  memset((char *)big, (int)(seed & 0x7f), sizeof big);
  return big[(unsigned long)seed % sizeof big] - (seed & 0x7f);
}

long fa_six_ints(long a, long b, long c, long d, long e, long f) {
  return touch_stack(a) + a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

double fa_eight_doubles(double a, double b, double c, double d, double e,
                        double f, double g, double h) {
  return (double)touch_stack(7) + a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f +
         7 * g + 8 * h;
}

double fa_mixed(int a, double b, long c, float d, const char *e, double f,
                unsigned char g, short h) {
  return a + 10 * b + 100 * c + 1000 * d + (double)strlen(e) * 10000 + f / 2 +
         g * 3 + h * 5;
}

fa_pair fa_make_pair(long a, double b) {
  fa_pair p = {a * 2 + touch_stack(a), b * 2};
  return p;
}

fa_dpair fa_make_dpair(double x) {
  fa_dpair p = {x + 1, x - 1};
  return p;
}

fa_lpair fa_make_lpair(long x) {
  fa_lpair p = {x * 3, x * 5};
  return p;
}

__int128 fa_wide(__int128 x, long y) { return x * 3 + y; }

fa_v4f fa_vec(fa_v4f a, fa_v4f b) { return a * b + a; }

fa_big fa_big_ret(long x) {
  fa_big b;
  for (int i = 0; i < 5; i++)
    b.v[i] = x * (i + 1) + touch_stack(i);
  return b;
}

long fa_big_arg(fa_big b, long k) {
  return b.v[0] + b.v[1] * k + b.v[4];
}

long fa_seven(long a, long b, long c, long d, long e, long f, long g) {
  return a + b + c + d + e + f + 7 * g;
}

long double fa_ld(long double x, int k) { return x * k + 0.5L; }

double fa_sum_va(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i % 2) ? va_arg(ap, double) : (double)va_arg(ap, long);
  va_end(ap);
  return s + (double)touch_stack(n);
}

long fa_call_back(long (*fn)(long), long x) { return fn(x) + fn(x + 1); }

void fa_fill(char *dst, int n, char c) { memset(dst, c, (size_t)n); }
