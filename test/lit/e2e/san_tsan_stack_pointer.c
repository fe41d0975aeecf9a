// copystack_stack_pointer() (copystack.h) reads the calling thread's
// runtime state, which the tasks that run on the thread in turn share:
// under ThreadSanitizer those reads are no race between tasks, on one
// worker or two, however the tasks move between threads.
// RUN: %cc -fsanitize=thread %s -o %t
// RUN: env COPYSTACK_WORKERS=2 %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
// RUN: env COPYSTACK_WORKERS=1 %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
#include "Inputs/check.h"

enum { kTasks = 8, kRounds = 200 };
static copystack_waitgroup wg;
static long depth_ok[kTasks];

static void worker(void *arg) {
  long i = (long)arg;
  uintptr_t top = copystack_stack_pointer();
  for (int r = 0; r < kRounds; r++) {
    cs_burn(r % 40); // grows and moves the stack
    if (top - copystack_stack_pointer() < (1u << 20))
      depth_ok[i]++;
    copystack_yield();
  }
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, kTasks);
  for (long i = 0; i < kTasks; i++)
    copystack_go(worker, (void *)i);
  copystack_waitgroup_wait(&wg);
  long ok = 0;
  for (int i = 0; i < kTasks; i++)
    ok += depth_ok[i];
  printf("depths measured: %ld\n", ok);
  return 0;
}
// CHECK: depths measured: 1600
// REQUIRES: san-thread
