// The monitor's periodic collections compact tasks parked for a second,
// with nothing else happening: the collection that sees them parked makes
// the next one due even though no stack changed. Here every 50 ms; the
// tasks are compacted once they have been parked for a second, and they
// run correctly when they wake.
//
// With "busy-first", every task (main too) first yields in a loop for
// 300 ms: the monitor sees nothing parked and no stack change, and stops
// collecting. Then the tasks park and nothing else changes: the parks
// themselves make the next collection due (without that, a collection that
// ran while the tasks were busy was the last one, and the idle program kept
// every stack). Stress mode compacts a task at every park, so there the
// busy phase is not quiet; both runs check that the parked tasks end
// compacted.
// Under TSan, compaction is off (docs/stacks.md).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: %run COPYSTACK_COLLECT_MS=50 %t | FileCheck %s
// RUN: %run COPYSTACK_COLLECT_MS=50 %t busy-first | FileCheck %s
#include "Inputs/check.h"

#include <string.h>

enum { kTasks = 100 };
static copystack_chan *parked, *wake, *results;
static volatile int go_park = 1;

__attribute__((noinline)) static long wait_holding(long seed) {
  long locals[4] = {seed, seed + 1, seed + 2, seed + 3};
  long *p = &locals[2];
  CS_KEEP(locals);
  while (!__atomic_load_n(&go_park, __ATOMIC_ACQUIRE))
    copystack_yield();
  char c = 1;
  copystack_chan_send(parked, &c);
  copystack_chan_recv(wake, &c);
  return *p + locals[3];
}

static void waiter(void *arg) {
  long i = (long)arg;
  long bad = wait_holding(i) != 2 * i + 5;
  copystack_chan_send(results, &bad);
}

int main(int argc, char **argv) {
  int busy_first = argc > 1 && strcmp(argv[1], "busy-first") == 0;
  go_park = !busy_first;
  parked = copystack_chan_make(1, kTasks);
  wake = copystack_chan_make(1, 0);
  results = copystack_chan_make(sizeof(long), 0);
  for (long i = 0; i < kTasks; i++)
    copystack_go(waiter, (void *)i);
  if (busy_first) {
    // Everything runs or is runnable; nothing parks, no stack changes.
    uint64_t until = copystack_now_ns() + 300000000;
    while (copystack_now_ns() < until)
      copystack_yield();
    __atomic_store_n(&go_park, 1, __ATOMIC_RELEASE);
  }
  char c;
  for (int i = 0; i < kTasks; i++)
    copystack_chan_recv(parked, &c);
  // Main sleeps too: nothing runs, no stack changes. Wait up to 10 s.
  copystack_stats s;
  for (int i = 0; i < 100; i++) {
    copystack_sleep_ns(100000000);
    copystack_get_stats(&s);
    if (s.tasks_compacted == kTasks)
      break;
  }
  printf("compacted while idle: %llu of %d\n",
         (unsigned long long)s.tasks_compacted, kTasks);
  for (int i = 0; i < kTasks; i++)
    copystack_chan_send(wake, &c);
  long bad = 0;
  for (int i = 0; i < kTasks; i++) {
    long b;
    copystack_chan_recv(results, &b);
    bad += b;
  }
  printf("woke %d, %ld wrong\n", kTasks, bad);
  return bad != 0;
}
// CHECK: compacted while idle: 100 of 100
// CHECK: woke 100, 0 wrong
