// A task's own function whose last act is a park: optimized, the inline
// yield, sleep, wait group wait and mutex lock end in a tail call of
// __copystack_park from the function the task started with. On AArch64 a
// call pushes nothing, so the park starts with the stack pointer at the
// very top of the task's stack, which is still the task's (it stopped the
// program as a park from the thread's own stack before).
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/check.h"

static copystack_waitgroup started, wg;
static copystack_mutex lock;
static _Atomic int runs; // tasks on several threads count

static void yields(void *arg) {
  (void)arg;
  runs++;
  copystack_yield();
}

static void sleeps(void *arg) {
  (void)arg;
  runs++;
  copystack_sleep_ns(1000000);
}

static void waits(void *arg) {
  (void)arg;
  runs++;
  copystack_waitgroup_done(&started);
  copystack_waitgroup_wait(&wg);
}

static void locks(void *arg) {
  (void)arg;
  runs++;
  copystack_mutex_lock(&lock); // held by main: parks
}

int main(void) {
  copystack_waitgroup_add(&started, 20);
  copystack_waitgroup_add(&wg, 1);
  copystack_mutex_lock(&lock);
  for (int i = 0; i < 20; i++) {
    copystack_go(yields, 0);
    copystack_go(sleeps, 0);
    copystack_go(waits, 0);
    copystack_go(locks, 0);
  }
  copystack_waitgroup_wait(&started);
  copystack_sleep_ns(20000000);
  copystack_waitgroup_done(&wg);
  // Each unlock hands the lock to a waiting locker, which ends holding it
  // (a mutex is not owned by a task: the next unlock is main's again).
  for (int i = 0; i < 20; i++) {
    copystack_mutex_unlock(&lock);
    while (runs < 80 || copystack_num_tasks() > 1 + 19 - (unsigned)i)
      copystack_sleep_ns(100000);
  }
  printf("%d tasks ran, %llu left\n", runs,
         (unsigned long long)copystack_num_tasks() - 1);
  return 0;
}
// CHECK: 80 tasks ran, 0 left
