// Tasks that share a worker thread share its errno and its thread_locals,
// one task at a time: ThreadSanitizer reports none of it. Each task sets
// errno, calls strtol, reads errno back and counts in a thread_local,
// yielding between rounds so that the tasks interleave on each thread.
// (Switching tasks orders nothing for TSan: the pass drops its checks of
// accesses to the thread's own memory, and every task on a thread comes
// after the thread's start, where TSan writes the thread's TLS.)
// RUN: %cc -fsanitize=thread %s -o %t
// RUN: env COPYSTACK_WORKERS=1 TSAN_OPTIONS=halt_on_error=1 %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
// RUN: env COPYSTACK_WORKERS=2 TSAN_OPTIONS=halt_on_error=1 %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
#include "Inputs/check.h"
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <stdlib.h>

enum { kTasks = 6, kRounds = 200 };

static _Thread_local long rounds_here;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static int wrong; // relaxed atomics

static void worker(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < kRounds; i++) {
    errno = 0;
    long v = strtol(i % 2 ? "99999999999999999999999" : "12", 0, 10);
    int e = errno;
    if ((i % 2 && (v != LONG_MAX || e != ERANGE)) || (!(i % 2) && e != 0))
      __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
    if (!isdigit('0' + (int)(id % 10)))
      __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
    rounds_here++;
    copystack_yield();
  }
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, kTasks);
  for (long i = 0; i < kTasks; i++)
    copystack_go(worker, (void *)i);
  copystack_waitgroup_wait(&wg);
  printf("errno as each task left it: %s\n",
         __atomic_load_n(&wrong, __ATOMIC_RELAXED) ? "NO" : "yes");
  return 0;
}
// CHECK: errno as each task left it: yes
// REQUIRES: san-thread
