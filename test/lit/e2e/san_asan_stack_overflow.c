// AddressSanitizer finds a stack-buffer-overflow in an instrumented
// function called from a task whose stack has grown (and from main, also a
// task), and reports it as it does without tasks: the report, not a crash
// in the guard band, and the process exits with ASan's status.
// RUN: %cc -fsanitize=address %s -o %t
// RUN: %exits 1 %run %t task 2>&1 | FileCheck %s --check-prefixes=CHECK,TASK
// RUN: %exits 1 %run %t main 2>&1 | FileCheck %s
// RUN: env ASAN_OPTIONS=detect_stack_use_after_return=0 %exits 1 %run %t task 2>&1 | FileCheck %s --check-prefixes=CHECK,TASK
#include "Inputs/check.h"
#include <string.h>

static volatile int index_ = 8; // one past the end, unknown to the compiler

__attribute__((noinline)) static int overflow(void) {
  int a[8];
  for (int k = 0; k < 8; k++)
    a[k] = k;
  CS_KEEP(a);
  return a[index_];
}

__attribute__((noinline)) static int deep(int n) {
  char frame[128];
  memset(frame, n, sizeof frame);
  CS_KEEP(frame);
  if (n == 0)
    return overflow();
  return deep(n - 1) + frame[1];
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void task(void *arg) {
  (void)arg;
  unsigned long before = cs_growths();
  cs_burn(100); // the stack grows to 32 KiB and more
  fprintf(stderr, "grown: %s\n", cs_growths() > before ? "yes" : "no");
  fprintf(stderr, "result %d\n", deep(50));
  copystack_waitgroup_done(&wg);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "main"))
    return deep(20) == 0;
  copystack_waitgroup_add(&wg, 1);
  copystack_go(task, 0);
  copystack_waitgroup_wait(&wg);
  return 0;
}
// TASK: grown: yes
// CHECK: ERROR: AddressSanitizer: stack-buffer-overflow on address
// CHECK: READ of size 4
// CHECK-NEXT: #0 {{.*}} in overflow {{.*}}san_asan_stack_overflow.c
// CHECK-NEXT: #1 {{.*}} in deep {{.*}}san_asan_stack_overflow.c
// TASK: in task {{.*}}san_asan_stack_overflow.c
// CHECK: in __copystack_task_start
// CHECK: SUMMARY: AddressSanitizer: stack-buffer-overflow {{.*}}san_asan_stack_overflow.c{{.*}} in overflow
// REQUIRES: san-address
