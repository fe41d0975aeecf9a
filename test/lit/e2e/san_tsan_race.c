// ThreadSanitizer reports a real data race between two tasks that run on
// different workers, names them as tasks, and points at both accesses.
// The two increments never overlap in time (the second task waits for a
// relaxed flag, which orders nothing for TSan): two accesses at the same
// instant can both miss each other in TSan's shadow, and the race would
// then go unreported (seen once in CI, as "counter 1" and no report).
// RUN: %cc -fsanitize=thread %s -o %t
// RUN: env COPYSTACK_WORKERS=2 TSAN_OPTIONS=halt_on_error=1 %exits 66 %run %t 2>&1 | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 TSAN_OPTIONS=halt_on_error=1 %exits 66 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"

static long counter; // no lock, no channel: a race
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static copystack_chan *started;
static int first_done; // only through relaxed __atomic builtins

__attribute__((noinline)) static void bump(int n, int second) {
  char frame[256]; // and the stack grows first
  CS_KEEP(frame);
  if (n > 0) {
    bump(n - 1, second);
    return;
  }
  if (second)
    while (!__atomic_load_n(&first_done, __ATOMIC_RELAXED))
      copystack_yield();
  counter++;
  if (!second)
    __atomic_store_n(&first_done, 1, __ATOMIC_RELAXED);
}

static void racer(void *arg) {
  int one = 1;
  copystack_chan_send(started, &one);
  bump(40, arg != 0);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  started = copystack_chan_make(sizeof(int), 2);
  copystack_waitgroup_add(&wg, 2);
  copystack_go(racer, 0);
  copystack_go(racer, (void *)1);
  copystack_waitgroup_wait(&wg);
  printf("counter %ld\n", counter);
  return 0;
}
// CHECK: WARNING: ThreadSanitizer: data race
// CHECK: {{Write|Read}} of size 8 at {{.*}} by thread T{{[0-9]+}}:
// CHECK: #0 bump {{.*}}san_tsan_race.c
// CHECK: Previous {{write|read}} of size 8 at {{.*}} by thread T{{[0-9]+}}:
// CHECK: #0 bump {{.*}}san_tsan_race.c
// CHECK: Thread T{{[0-9]+}} 'copystack task {{[0-9]+}}'
// CHECK: SUMMARY: ThreadSanitizer: data race {{.*}}san_tsan_race.c{{.*}} in bump
// REQUIRES: san-thread
