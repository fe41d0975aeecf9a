// A task spinning in a loop of a function that calls nothing else is
// preempted: with one worker, main runs again while the task spins; by the
// runtime's signal (the default build has no loop polls) and, built with
// --copystack-preempt=polls and the signal off, by the loop's poll, which
// in a function without floating-point values has the preemption stub's
// call inside one asm (LoopPolls.h): the function stays a leaf, with no
// frame pointer and, as it needs no stack, no frame and no prologue check.
// And a task dump of the task preempted there names the leaf's caller: its
// unwind tables give it (the %rbp chain would go from the leaf to its
// caller's caller).
// RUN: %cc %s -o %t
// RUN: %exits 2 env COPYSTACK_WORKERS=1 %run %t > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: %cc --copystack-preempt=polls %s -o %t.polls
// RUN: %exits 2 env COPYSTACK_WORKERS=1 COPYSTACK_PREEMPT_SIGNAL=0 %run %t.polls > %t.polls.out 2>&1
// RUN: FileCheck %s < %t.polls.out
// RUN: %if O2 && !tsan && !ubsan %{ %cc --copystack-preempt=polls -S %s -o - | FileCheck %s --check-prefix=%if aarch64 %{ASM-A64%} %else %{ASM%} %}
// RUN: %if O2 && !tsan && !ubsan %{ %cc -S %s -o - | FileCheck %s --check-prefix=%if aarch64 %{NOPOLL-A64%} %else %{NOPOLL%} %}
// (On AArch64 the asm's call clobbers x30, which the leaf saves: no frame
// record, no check.)
#include "Inputs/check.h"
#include "Inputs/preempted_dump.h"

// Shared between tasks: atomics, relaxed (no race for TSan either).
static int stop;
static unsigned long spins;

// Calls nothing: its loop's poll is the only "call" (an atomic
// read-modify-write would count as one: the backend may make it a libcall).
__attribute__((noinline)) static unsigned long spin(void) {
  unsigned long n = 0;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    __atomic_store_n(&spins, ++n, __ATOMIC_RELAXED);
  return n;
}

__attribute__((noinline)) static void spinner(void *arg) {
  (void)arg;
  unsigned long n = spin();
  printf("not reached: %lu\n", n);
}

int main(void) { return preempted_dump(spinner, &stop, &spins); }
// CHECK: main ran again while the task spun: yes
// CHECK: SIGQUIT: quit
// CHECK: task {{[0-9]+}} [runnable]:
// CHECK: #{{[0-9]+}} spin at {{.*}}preempt_leaf_loop.c:{{[0-9]+}}
// CHECK-NEXT: #{{[0-9]+}} spinner at {{.*}}preempt_leaf_loop.c:{{[0-9]+}}
// CHECK-NOT: not reached

// ASM-LABEL: spin:
// ASM-NOT:   pushq %rbp
// ASM-NOT:   %fs:112, %rsp
// ASM:       cmpq $-2, %fs:112
// ASM-NEXT:  jne
// ASM-NEXT:  callq *__copystack_preempt@GOTPCREL(%rip)
// ASM:       .Lfunc_end
// NOPOLL-LABEL: spin:
// NOPOLL-NOT:   %fs:112
// NOPOLL:       .Lfunc_end
// ASM-A64-LABEL: spin:
// ASM-A64-NOT:   x29
// ASM-A64-NOT:   __morestack
// ASM-A64:       cmn x16, #2
// ASM-A64-NEXT:  b.ne
// ASM-A64-NEXT:  adrp x16, :got:__copystack_preempt
// ASM-A64-NEXT:  ldr x16, [x16, :got_lo12:__copystack_preempt]
// ASM-A64-NEXT:  blr x16
// ASM-A64:       .Lfunc_end
// NOPOLL-A64-LABEL: spin:
// NOPOLL-A64-NOT:   cmn x16, #2
// NOPOLL-A64:       .Lfunc_end
