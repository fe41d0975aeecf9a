// The program's main task starts on the process's initial thread (worker 0
// runs it first, not through a queue another worker could take it from):
// as without copystack, main's thread id is the process id, and glibc
// serves its allocations from the main arena, until it first parks. Tasks
// it starts run beside it.
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=4 %run %t | FileCheck %s
#include "Inputs/check.h"

#include <sys/syscall.h>
#include <unistd.h>

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static long seen;

static void child(void *arg) {
  __atomic_add_fetch(&seen, (long)(intptr_t)arg, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  printf("main on the initial thread: %s\n",
         syscall(SYS_gettid) == getpid() ? "yes" : "no");
  copystack_waitgroup_add(&wg, 10);
  for (int i = 1; i <= 10; ++i)
    copystack_go(child, (void *)(intptr_t)i);
  copystack_waitgroup_wait(&wg);
  printf("children: %ld\n", seen);
  return 0;
}
// CHECK: main on the initial thread: yes
// CHECK-NEXT: children: 55
