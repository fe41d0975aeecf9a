// A loop whose only call is of a leaf (a function that calls nothing keeps
// no frame pointer and, needing no stack, has no prologue check) polls at
// its back edge: the call checks nothing. Before, such a loop counted as
// checked by the call, and a task spinning in it was never preempted: with
// one worker, main never ran again (the timeout here). At -O2 the task
// stops at the loop's poll; where the leaf has a frame (-O0, the
// sanitizers) at the leaf's prologue check, and the dump then takes the
// frames below __morestack from the unwind tables (the %rbp chain would
// skip the loop: the leaf had not pushed %rbp yet).
// RUN: %cc %s -o %t
// RUN: %exits 2 timeout 60 env COPYSTACK_WORKERS=1 %run %t > %t.out 2>&1
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include "Inputs/preempted_dump.h"

// Shared between tasks: atomics, relaxed (no race for TSan either).
static int stop;
static unsigned long spins;

__attribute__((noinline)) void bump(unsigned long *p) {
  __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + 1,
                   __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void loop(void) {
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    bump(&spins);
}

__attribute__((noinline)) static void spinner(void *arg) {
  (void)arg;
  loop();
  printf("not reached\n");
}

int main(void) { return preempted_dump(spinner, &stop, &spins); }
// CHECK: main ran again while the task spun: yes
// CHECK: SIGQUIT: quit
// CHECK: task {{[0-9]+}} [runnable]:
// CHECK: #{{[0-9]+}} loop at {{.*}}preempt_loop_calls_leaf.c:{{[0-9]+}}
// CHECK-NEXT: #{{[0-9]+}} spinner at {{.*}}preempt_loop_calls_leaf.c:{{[0-9]+}}
// CHECK-NOT: not reached
