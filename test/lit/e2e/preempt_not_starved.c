// A preempted task is not starved by a worker whose own queue never
// empties: with one worker, a chain of tasks that each spawn the next keeps
// the worker's local queue full, and a spinning task, preempted, still
// gets its turn (the scheduler gives this thread's preempted tasks a turn
// every 30 ticks, once the global queue has handed out what it held when
// they stopped). Without that turn the spinner waited until the chain
// stopped: 0 iterations after the chain first ran, and 300,000 links.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"

static int stop, chain_ran;
static long resumed, links;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void spinner(void *arg) {
  (void)arg;
  // One worker: the chain runs only while this task is preempted. Looping
  // after it ran means this task got its turn again.
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    if (__atomic_load_n(&chain_ran, __ATOMIC_RELAXED))
      __atomic_fetch_add(&resumed, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

static void chain(void *arg) {
  (void)arg;
  __atomic_store_n(&chain_ran, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&links, 1, __ATOMIC_RELAXED);
  if (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    copystack_waitgroup_add(&wg, 1);
    copystack_go(chain, 0);
  }
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, 2);
  copystack_go(spinner, 0);
  copystack_go(chain, 0);
  copystack_sleep_ns(300000000);
  long seen = __atomic_load_n(&resumed, __ATOMIC_RELAXED);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_wait(&wg);
  printf("the preempted spinner ran again while the chain ran: %s\n",
         seen > 0 ? "yes" : "NO");
  fprintf(stderr, "spinner iterations after the chain ran: %ld; %ld links\n", seen,
          __atomic_load_n(&links, __ATOMIC_RELAXED));
  return 0;
}
// CHECK: the preempted spinner ran again while the chain ran: yes
