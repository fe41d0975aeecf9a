// A preempted task resumes on the thread it stopped on, with its errno:
// three tasks spin in loops without calls on two workers, so each is
// preempted to let the third run, yet none finds itself on another thread
// (its thread_local addresses and errno's location may be held across the
// loop) or with another task's errno.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
#define _GNU_SOURCE
#include "Inputs/check.h"
#include <errno.h>
#include <unistd.h>

enum { kSpinners = 3 };

// Shared between tasks: atomics, relaxed (no race for TSan either).
static int stop;
static unsigned long spins[kSpinners];
static int moved, errno_lost;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void spinner(void *arg) {
  long id = (long)arg;
  pid_t before = gettid();
  volatile int *err = &errno;
  *err = 4000 + (int)id;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    __atomic_fetch_add(&spins[id], 1, __ATOMIC_RELAXED);
  if (*err != 4000 + (int)id)
    errno_lost++;
  if (gettid() != before)
    moved++;
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, kSpinners);
  for (long i = 0; i < kSpinners; i++)
    copystack_go(spinner, (void *)i);
  copystack_sleep_ns(100000000);
  int all = 1;
  for (int i = 0; i < kSpinners; i++)
    all &= __atomic_load_n(&spins[i], __ATOMIC_RELAXED) > 0;
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_wait(&wg);
  printf("all spinners ran: %s, moved while spinning: %d, errno lost: %d\n",
         all ? "yes" : "NO", moved, errno_lost);
  return 0;
}
// CHECK: all spinners ran: yes, moved while spinning: 0, errno lost: 0
