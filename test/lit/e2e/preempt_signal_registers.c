// Preemption by the signal (sched/preempt_signal.h) stops a task at any
// instruction and resumes it with every register as it was: general
// registers, flags, SSE, and the upper halves of AVX and AVX-512 vectors
// where the CPU has them. Built without loop polls
// (--copystack-preempt=signal), each computation is a loop that calls
// nothing and keeps its state in registers; three tasks share one worker,
// so the monitor stops each many times, at whatever instruction the signal
// lands on. Every task's results must equal main's, computed before the
// tasks start (main may be stopped too: five runs, each stopped at other
// places, agree only if no stop changed a register). Two more loops call
// foreign code (libm) for most of their time, and are stopped as those
// calls return (switch.S): their results, in %xmm0 and on the x87 stack
// (cbrtl's long double, where the task cannot stop and yields at its next
// check instead), must come back whole. On AArch64 the vector loop keeps
// eight 128-bit registers live (both halves), and long double is fp128.
// UNSUPPORTED: tsan
// RUN: %cc --copystack-preempt=signal %s -o %t -lm
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
// CHECK: results agree: yes
// CHECK: stopped by the signal: yes
#include "Inputs/check.h"

#include <math.h>
#include <stdint.h>

#ifdef __OPTIMIZE__
enum { kIters = 6000000 };
#else
enum { kIters = 1500000 };
#endif
enum { kTasks = 4, kKinds = 5 };

__attribute__((noinline)) static uint64_t scalar(uint64_t n) {
  uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
  double x = 1.0, y = 0.5, z = 0.25, w = 0.125;
  for (uint64_t i = 0; i < n; i++) {
    a ^= a << 13;
    a ^= a >> 7;
    a ^= a << 17;
    b += a * 0x9E3779B97F4A7C15ull;
    c ^= b >> 11;
    d += c | 1;
    e ^= d * 3;
    f += e >> 3;
    g ^= f + i;
    h += g ^ (h >> 5);
    x = x * 1.0000001 + (double)(a & 0xff) * 1e-9;
    y = y * 0.9999999 + x * 1e-12;
    z += y * 1e-3;
    w = w * 0.5 + z * 0.25;
  }
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ (uint64_t)(x * 1e6) ^
         (uint64_t)(y * 1e9) ^ (uint64_t)(z * 1e3) ^ (uint64_t)(w * 1e3);
}

#if defined(__x86_64__)
typedef double v4d __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));

__attribute__((noinline, target("avx2"))) static uint64_t avx2(uint64_t n) {
  v4d p = {1, 2, 3, 4}, q = {0.5, 0.25, 0.125, 0.0625}, r = {1, 1, 1, 1};
  const v4d k = {1.0000001, 0.9999999, 1.0000002, 0.9999998};
  for (uint64_t i = 0; i < n; i++) {
    p = p * k + q * 1e-7;
    q = q * k - r * 1e-9;
    r = r + p * 1e-12;
  }
  v4d s = p + q + r;
  double t = s[0] * 1e3 + s[1] * 1e5 + s[2] * 1e7 + s[3] * 1e9;
  return (uint64_t)t;
}

__attribute__((noinline, target("avx512f"))) static uint64_t
avx512(uint64_t n) {
  v8d p = {1, 2, 3, 4, 5, 6, 7, 8}, q = {1, 1, 1, 1, 2, 2, 2, 2};
  const v8d k = {1.0000001, 0.9999999, 1.0000002, 0.9999998,
                 1.0000003, 0.9999997, 1.0000004, 0.9999996};
  for (uint64_t i = 0; i < n; i++) {
    p = p * k + q * 1e-8;
    q = q * k - p * 1e-10;
  }
  v8d s = p + q;
  double t = 0;
  for (int j = 0; j < 8; j++)
    t = t * 10 + s[j];
  return (uint64_t)(t * 1e3);
}
#define HAVE_WIDE_1 __builtin_cpu_supports("avx2")
#define HAVE_WIDE_2 __builtin_cpu_supports("avx512f")
#else
// AArch64: both halves of eight vector registers, q16-q23 among them,
// which AAPCS64 does not keep across a call (the stop keeps them all).
typedef double v2d __attribute__((vector_size(16)));

__attribute__((noinline)) static uint64_t avx2(uint64_t n) {
  v2d p = {1, 2}, q = {0.5, 0.25}, r = {1, 1}, u = {3, 4};
  v2d p2 = {5, 6}, q2 = {0.125, 0.0625}, r2 = {2, 2}, u2 = {7, 8};
  const v2d k = {1.0000001, 0.9999999};
  for (uint64_t i = 0; i < n; i++) {
    p = p * k + q * 1e-7;
    q = q * k - r * 1e-9;
    r = r + u * 1e-12;
    u = u * k + p * 1e-13;
    p2 = p2 * k + q2 * 1e-7;
    q2 = q2 * k - r2 * 1e-9;
    r2 = r2 + u2 * 1e-12;
    u2 = u2 * k + p2 * 1e-13;
  }
  v2d s = p + q + r + u + p2 + q2 + r2 + u2;
  return (uint64_t)(s[0] * 1e3 + s[1] * 1e7);
}
static uint64_t avx512(uint64_t n) { return n; }
#define HAVE_WIDE_1 1
#define HAVE_WIDE_2 0
#endif

__attribute__((noinline)) static uint64_t foreign_double(uint64_t n) {
  double s = 0;
  for (uint64_t i = 0; i < n / 16; i++)
    s += cbrt((double)i);
  return (uint64_t)(s * 1e3);
}

__attribute__((noinline)) static uint64_t foreign_x87(uint64_t n) {
  long double s = 0;
  for (uint64_t i = 0; i < n / 32; i++)
    s += cbrtl((long double)i);
  return (uint64_t)(s * 1e3L);
}

static int have[kKinds];
static uint64_t expect[kKinds];
static uint64_t got[kTasks][kKinds];
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void compute(uint64_t out[kKinds]) {
  out[0] = scalar(kIters);
  out[1] = have[1] ? avx2(kIters) : 0;
  out[2] = have[2] ? avx512(kIters) : 0;
  out[3] = foreign_double(kIters);
  out[4] = foreign_x87(kIters);
}

static void worker(void *arg) {
  compute(got[(intptr_t)arg]);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  have[1] = HAVE_WIDE_1;
  have[2] = HAVE_WIDE_2;
  compute(expect);
  copystack_waitgroup_add(&wg, kTasks);
  for (intptr_t i = 0; i < kTasks; i++)
    copystack_go(worker, (void *)i);
  copystack_waitgroup_wait(&wg);
  int agree = 1;
  for (int i = 0; i < kTasks; i++)
    for (int k = 0; k < kKinds; k++)
      if (got[i][k] != expect[k]) {
        printf("task %d, computation %d: %llu, main's %llu\n", i, k,
               (unsigned long long)got[i][k], (unsigned long long)expect[k]);
        agree = 0;
      }
  printf("results agree: %s\n", agree ? "yes" : "no");
  copystack_stats s;
  copystack_get_stats(&s);
  printf("stopped by the signal: %s\n", s.preemptions_signal ? "yes" : "no");
  fprintf(stderr, "preemptions %llu, by the signal %llu\n",
          (unsigned long long)s.preemptions,
          (unsigned long long)s.preemptions_signal);
  return 0;
}
