// Preemption of a task that spends its time in foreign calls: with one
// worker, a task that calls a 200 us foreign function in a loop (each call
// too short for the monitor, which looks every 1 ms, to see it stuck and
// hand the worker to a spare) no longer
// starves main. The monitor nearly always finds the thread in the call,
// with the split-stack limit at 0; the request it leaves is honoured when
// the call returns to the task. Bounded: the task gives up after 3 s, and
// main says whether it ran before that.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"
#include "Inputs/spin.h"

static int stop, gave_up;
static long calls;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void caller(void *arg) {
  (void)arg;
  long n = 0;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    if (++n > 15000) { // 3 s of calls
      __atomic_store_n(&gave_up, 1, __ATOMIC_RELAXED);
      break;
    }
    spin_us(200);
    __atomic_store_n(&calls, n, __ATOMIC_RELAXED);
  }
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, 1);
  copystack_go(caller, 0);
  // Until the task has made a call (under qemu, with stress and verify
  // mode, its start may take longer than one sleep): main runs again only
  // if the task is preempted, or once it gives up.
  for (int i = 0; i < 100; i++) {
    copystack_sleep_ns(20000000);
    if (__atomic_load_n(&calls, __ATOMIC_RELAXED) > 0 ||
        __atomic_load_n(&gave_up, __ATOMIC_RELAXED))
      break;
  }
  int early = !__atomic_load_n(&gave_up, __ATOMIC_RELAXED);
  long seen = __atomic_load_n(&calls, __ATOMIC_RELAXED);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_wait(&wg);
  printf("main ran again while the task was in its calls: %s\n",
         early && seen > 0 ? "yes" : "NO");
  return 0;
}
// CHECK: main ran again while the task was in its calls: yes
