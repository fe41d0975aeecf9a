// The own prologue's stack probe (copystack/abi.h, COPYSTACK_SYM_STACK_PROBE)
// keeps every register but the flags: LLVM calls it from a prologue that
// shrink-wrapping may have moved to where any register holds a value.
// Called here by hand, with values in %r11, xmm8, the upper half of ymm9,
// zmm17 and the mask k1 (those the CPU has): in stress and verify mode the
// probe's slow path runs and the stack moves, in normal mode its fast path.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

#include <string.h>

__attribute__((noinline)) static void probe_general(unsigned long *r11,
                                                    unsigned long *x8) {
  unsigned long a, b;
  __asm__ volatile("movq $0x5eed, %%r11\n\t"
                   "movq $0x600d, %%rax\n\t"
                   "movq %%rax, %%xmm8\n\t"
                   "movl $64, %%eax\n\t"
                   "call __copystack_stack_probe\n\t"
                   "movq %%r11, %0\n\t"
                   "movq %%xmm8, %1"
                   : "=r"(a), "=r"(b)
                   :
                   : "rax", "r11", "xmm8", "memory", "cc");
  *r11 = a;
  *x8 = b;
}

__attribute__((noinline, target("avx"))) static unsigned long probe_ymm(void) {
  unsigned long hi;
  __asm__ volatile("movq $0x7177, %%rax\n\t"
                   "vmovq %%rax, %%xmm0\n\t"
                   "vinsertf128 $1, %%xmm0, %%ymm9, %%ymm9\n\t"
                   "movl $64, %%eax\n\t"
                   "call __copystack_stack_probe\n\t"
                   "vextractf128 $1, %%ymm9, %%xmm0\n\t"
                   "vmovq %%xmm0, %0\n\t"
                   "vzeroupper"
                   : "=r"(hi)
                   :
                   : "rax", "xmm0", "xmm9", "memory", "cc");
  return hi;
}

__attribute__((noinline, target("avx512f"))) static unsigned long
probe_zmm(unsigned *mask) {
  unsigned long v;
  unsigned m;
  __asm__ volatile("movq $0x2a17, %%rax\n\t"
                   "vmovq %%rax, %%xmm17\n\t"
                   "movl $0xa5, %%eax\n\t"
                   "kmovw %%eax, %%k1\n\t"
                   "movl $64, %%eax\n\t"
                   "call __copystack_stack_probe\n\t"
                   "vmovq %%xmm17, %0\n\t"
                   "kmovw %%k1, %1\n\t"
                   "vzeroupper"
                   : "=r"(v), "=r"(m)
                   :
                   : "rax", "xmm17", "k1", "memory", "cc");
  *mask = m;
  return v;
}

int main(void) {
  __builtin_cpu_init();
  unsigned long r11, x8;
  probe_general(&r11, &x8);
  printf("r11 %#lx xmm8 %#lx\n", r11, x8);
  printf("ymm9 high %#lx\n",
         __builtin_cpu_supports("avx") ? probe_ymm() : 0x7177ul);
  unsigned mask = 0xa5;
  unsigned long z = __builtin_cpu_supports("avx512f") ? probe_zmm(&mask)
                                                      : 0x2a17ul;
  printf("zmm17 %#lx k1 %#x\n", z, mask);
  return 0;
}
// CHECK: r11 0x5eed xmm8 0x600d
// CHECK: ymm9 high 0x7177
// CHECK: zmm17 0x2a17 k1 0xa5
