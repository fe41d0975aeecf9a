// The deadlock check and the task dump look at every task while the
// scheduler's monitor collects stacks (every millisecond here: main runs
// while the waiters stay parked, so each collection finds them to mark),
// and the collector holds each task it visits for a moment. A task it
// holds is waited for, not reported as it is for that moment: every
// parked task is found asleep and printed with its wait.
// RUN: %cc %s -o %t
// RUN: %exits 2 env COPYSTACK_COLLECT_MS=1 %run %t > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: grep -c 'chan receive' %t.out | FileCheck --check-prefix=COUNT %s
#include "Inputs/check.h"
#include <time.h>

enum { kWaiters = 2000 };
static copystack_chan *never;

__attribute__((noinline)) static void receive_forever(void) {
  int v;
  copystack_chan_recv(never, &v);
}

static void waiter(void *arg) {
  (void)arg;
  receive_forever();
}

int main(void) {
  never = copystack_chan_make(sizeof(int), 0);
  for (int i = 0; i < kWaiters; ++i)
    copystack_go(waiter, 0);
  // Run (the monitor collects every millisecond meanwhile), then block.
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do
    clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
         30000000L);
  int v;
  copystack_chan_recv(never, &v);
  printf("not reached\n");
  return 0;
}
// CHECK: fatal error: all tasks are asleep - deadlock!
// CHECK-NOT: being moved
// CHECK-NOT: not reached
// COUNT: {{^}}2001{{$}}
