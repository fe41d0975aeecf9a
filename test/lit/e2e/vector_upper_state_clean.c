// A growth leaves the AVX upper state as clean as the caller had it. The
// stack probe keeps every vector register and __morestack the argument
// ones, whole (morestack.S, SAVE_WIDE/RESTORE_WIDE); reloading them with
// 256- or 512-bit loads marked the upper halves of ymm0-15/zmm0-15 in use
// even when the bits were zero, and legacy SSE code then ran several times
// slower until the next vzeroupper (BM_loops at 4.75x plain's CPU time
// after the probe in its round's prologue, docs/benchmarks.md). Now, when
// the saved upper bits are all zero, the registers are put back with
// vzeroupper and 128-bit loads: the same values, and a clean state.
//
// Each case runs on a fresh 2 KiB task stack, so the probe or check grows
// it in every mode. XGETBV with ECX=1 reads the state in use (bit 2: the
// upper halves of ymm0-15; bit 6: the upper 256 bits of zmm0-15); where the
// CPU lacks it, or vzeroupper itself does not clean it, the state checks
// are skipped and only the values are checked. A context switch may clean
// the state behind the program's back, never dirty it: no false failures.
// Upper bits that are live (in the top lane of ymm15, or of zmm15) are
// reloaded whole, with the rest of the register.
// REQUIRES: x86_64
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

#include <cpuid.h>
#include <stdint.h>

#define UPPER_IN_USE 0x44u // XINUSE bits 2 (AVX) and 6 (ZMM_Hi256)

static int have_avx, have_avx512, have_xinuse;

// The own stack probe called by hand with 16 KiB to take: on a fresh task
// stack its slow path runs and grows it. Before it, the upper state is
// made clean (vzeroupper) and xmm8 and xmm15 get values with legacy SSE
// moves (which keep it clean); after it, the state in use and the values.
__attribute__((noinline, target("avx"))) static void probe_clean(uint32_t *before,
                                                  uint32_t *after,
                                                  uint64_t *x8,
                                                  uint64_t *x15) {
  uint32_t b, a;
  uint64_t v8, v15;
  __asm__ volatile("vzeroupper\n\t"
                   "movq $0x8888, %%rax\n\t"
                   "movq %%rax, %%xmm8\n\t"
                   "movq $0xf1f1, %%rax\n\t"
                   "movq %%rax, %%xmm15\n\t"
                   "movl $1, %%ecx\n\t"
                   "xgetbv\n\t"
                   "movl %%eax, %0\n\t"
                   "movl $16384, %%eax\n\t"
                   "call __copystack_stack_probe\n\t"
                   "movl $1, %%ecx\n\t"
                   "xgetbv\n\t"
                   "movl %%eax, %1\n\t"
                   "movq %%xmm8, %2\n\t"
                   "movq %%xmm15, %3"
                   : "=m"(b), "=m"(a), "=r"(v8), "=r"(v15)
                   :
                   : "rax", "rcx", "rdx", "xmm8", "xmm15", "memory", "cc");
  *before = b;
  *after = a;
  *x8 = v8;
  *x15 = v15;
}

// The same with the upper state made dirty by a 512-bit load of zeros
// into zmm8 (what the probe's old reload did): the probe leaves it clean.
__attribute__((noinline, target("avx512f"))) static void probe_dirty_zero(uint32_t *before,
                                                       uint32_t *after) {
  static const uint64_t zero[8] __attribute__((aligned(64)));
  uint32_t b, a;
  __asm__ volatile("vzeroupper\n\t"
                   "vmovdqu64 %2, %%zmm8\n\t"
                   "movl $1, %%ecx\n\t"
                   "xgetbv\n\t"
                   "movl %%eax, %0\n\t"
                   "movl $16384, %%eax\n\t"
                   "call __copystack_stack_probe\n\t"
                   "movl $1, %%ecx\n\t"
                   "xgetbv\n\t"
                   "movl %%eax, %1\n\t"
                   "vzeroupper"
                   : "=m"(b), "=m"(a)
                   : "m"(zero)
                   : "rax", "rcx", "rdx", "xmm8", "memory", "cc");
  *before = b;
  *after = a;
}

// Live upper bits in the top lane of zmm15 only: all of zmm15 survives.
__attribute__((noinline, target("avx512f"))) static void probe_live_zmm(uint64_t out[8]) {
  static const uint64_t in[8] __attribute__((aligned(64))) = {
      0x1515, 0, 0, 0, 0, 0, 0, 0x7e7e7e7e7e7e7e7eull};
  __asm__ volatile("vmovdqu64 %1, %%zmm15\n\t"
                   "movl $16384, %%eax\n\t"
                   "call __copystack_stack_probe\n\t"
                   "vmovdqu64 %%zmm15, %0\n\t"
                   "vzeroupper"
                   : "=m"(*(uint64_t(*)[8])out)
                   : "m"(in)
                   : "rax", "xmm15", "memory", "cc");
}

// Live upper bits in ymm15's top lane only (AVX2 code's state): all of
// ymm15 survives, and with AVX-512 the high halves of zmm0-15 are left
// unmarked (XINUSE bit 6), as the caller had them.
__attribute__((noinline, target("avx"))) static uint32_t
probe_live_ymm(uint64_t out[4]) {
  static const uint64_t in[4] __attribute__((aligned(32))) = {
      0x1515, 0, 0, 0x7e7e7e7e7e7e7e7eull};
  uint32_t a;
  __asm__ volatile("vzeroupper\n\t"
                   "vmovdqu %2, %%ymm15\n\t"
                   "movl $16384, %%eax\n\t"
                   "call __copystack_stack_probe\n\t"
                   "movl $1, %%ecx\n\t"
                   "xgetbv\n\t"
                   "movl %%eax, %1\n\t"
                   "vmovdqu %%ymm15, %0\n\t"
                   "vzeroupper"
                   : "=m"(*(uint64_t(*)[4])out), "=m"(a)
                   : "m"(in)
                   : "rax", "rcx", "rdx", "xmm15", "memory", "cc");
  return a;
}

static uint32_t xinuse(void) {
  uint32_t a, d;
  __asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(1));
  return a;
}

// __morestack: a recursion that grows the stack at its prologue checks,
// entered with a clean upper state; the state right after it returns.
__attribute__((noinline, target("avx"))) static uint32_t burn_from_clean(uint32_t *before) {
  __asm__ volatile("vzeroupper" ::: "memory");
  *before = xinuse();
  int r = cs_burn(100);
  uint32_t after = xinuse();
  CS_KEEP(&r);
  return after;
}

static int failures;

static void check_state(const char *what, uint32_t before, uint32_t after) {
  if (!have_xinuse || (before & UPPER_IN_USE))
    return; // cannot tell, or vzeroupper did not clean it here
  if (after & UPPER_IN_USE) {
    printf("%s: upper state left in use (XINUSE %#x)\n", what, after);
    failures++;
  }
}

static void case_probe_clean(void *arg) {
  (void)arg;
  uint32_t b, a;
  uint64_t x8, x15;
  probe_clean(&b, &a, &x8, &x15);
  check_state("probe, clean caller", b, a);
  if (x8 != 0x8888 || x15 != 0xf1f1) {
    printf("probe: xmm8 %#lx xmm15 %#lx\n", (unsigned long)x8,
           (unsigned long)x15);
    failures++;
  }
}

static void case_probe_dirty_zero(void *arg) {
  (void)arg;
  uint32_t b, a;
  probe_dirty_zero(&b, &a);
  if (have_xinuse && (a & UPPER_IN_USE)) {
    printf("probe, zero uppers in use: left in use (XINUSE %#x -> %#x)\n",
           b, a);
    failures++;
  }
}

static void case_probe_live_zmm(void *arg) {
  (void)arg;
  uint64_t z[8];
  probe_live_zmm(z);
  if (z[0] != 0x1515 || z[7] != 0x7e7e7e7e7e7e7e7eull || z[1] | z[2] | z[3] |
      z[4] | z[5] | z[6]) {
    printf("probe: zmm15 lost its upper lane\n");
    failures++;
  }
}

static void case_probe_live_ymm(void *arg) {
  (void)arg;
  uint64_t y[4];
  uint32_t a = probe_live_ymm(y);
  if (y[0] != 0x1515 || y[3] != 0x7e7e7e7e7e7e7e7eull || y[1] | y[2]) {
    printf("probe: ymm15 lost its upper lane\n");
    failures++;
  }
  if (have_avx512 && have_xinuse && (a & 0x40)) {
    printf("probe, live ymm: zmm high halves left in use (XINUSE %#x)\n", a);
    failures++;
  }
}

static void case_morestack(void *arg) {
  (void)arg;
  uint32_t b;
  uint32_t a = burn_from_clean(&b);
  check_state("__morestack, clean caller", b, a);
}

int main(void) {
  __builtin_cpu_init();
  have_avx = __builtin_cpu_supports("avx");
  have_avx512 = __builtin_cpu_supports("avx512f");
  unsigned eax, ebx, ecx, edx;
  have_xinuse = have_avx && __get_cpuid_count(0xd, 1, &eax, &ebx, &ecx, &edx) &&
                (eax & 4);
  if (have_avx) {
    cs_fresh_task(case_probe_clean, NULL);
    cs_fresh_task(case_probe_live_ymm, NULL);
    cs_fresh_task(case_morestack, NULL);
  }
  if (have_avx512) {
    cs_fresh_task(case_probe_live_zmm, NULL);
    cs_fresh_task(case_probe_dirty_zero, NULL);
  }
  printf("upper state: %d failures\n", failures);
  return failures != 0;
}
// CHECK-NOT: left in use
// CHECK-NOT: lost
// CHECK: upper state: 0 failures
