// The monitor's periodic collections compact tasks parked for a second,
// with nothing else happening: the collection that sees them parked makes
// the next one due even though no stack changed. Here every 50 ms; the
// tasks are compacted once they have been parked for a second, and they
// run correctly when they wake.
// Under TSan, compaction is off (docs/stacks.md).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: %run COPYSTACK_COLLECT_MS=50 %t | FileCheck %s
#include "Inputs/check.h"

enum { kTasks = 100 };
static copystack_chan *parked, *wake, *results;

__attribute__((noinline)) static long wait_holding(long seed) {
  long locals[4] = {seed, seed + 1, seed + 2, seed + 3};
  long *p = &locals[2];
  CS_KEEP(locals);
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

int main(void) {
  parked = copystack_chan_make(1, kTasks);
  wake = copystack_chan_make(1, 0);
  results = copystack_chan_make(sizeof(long), 0);
  for (long i = 0; i < kTasks; i++)
    copystack_go(waiter, (void *)i);
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
