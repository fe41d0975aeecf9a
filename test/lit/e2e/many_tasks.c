// The seed's counting program: 100,000 tasks each signal a wait group and
// block on a channel; main reads the task count before, while they are all
// parked, and after closing the channel once the count has settled. Also
// checks the memory accounting while they are parked.
// Not under TSan: each task stack is a mapping of its own there, and
// 100,000 of them pass the kernel's vm.max_map_count (docs/debugging.md).
// UNSUPPORTED: tsan
// The accounting is checked with compaction off (stress mode compacts
// tasks as they park); the counts with it on too.
// How many: %{tasks}, 100,000 but a tenth in verify and stress mode
// (lit.cfg.py).
// RUN: %cc %s -o %t && %run COPYSTACK_COMPACT=0 %t %{tasks} | FileCheck %s -D#N=%{tasks} --check-prefixes=CHECK,OFF
// RUN: %run COPYSTACK_WORKERS=7 %t %{tasks} | FileCheck %s -D#N=%{tasks}
#include "Inputs/check.h"

#include <stdlib.h>

static int N;
static copystack_chan *block;
static copystack_waitgroup started = COPYSTACK_WAITGROUP_INIT;

static void parked(void *arg) {
  (void)arg;
  copystack_waitgroup_done(&started);
  char c;
  copystack_chan_recv(block, &c);
}

int main(int argc, char **argv) {
  N = argc > 1 ? atoi(argv[1]) : 100000;
  printf("before: %llu\n", (unsigned long long)copystack_num_tasks());
  block = copystack_chan_make(1, 0);
  copystack_waitgroup_add(&started, N);
  for (int i = 0; i < N; i++)
    copystack_go(parked, 0);
  copystack_waitgroup_wait(&started);
  // Every task has signalled; the last ones may still be on their way to
  // the receive, but they exist.
  printf("parked: %llu\n", (unsigned long long)copystack_num_tasks());
  copystack_stats s;
  copystack_get_stats(&s);
  printf("stack in use per task: %llu\n",
         (unsigned long long)(s.stack_inuse / (N + 1)));
  REQUIRE(s.task_inuse >= (uint64_t)N * 200);
  REQUIRE(s.sys >= s.stack_sys + s.task_sys);
  copystack_chan_close(block);
  for (int i = 0; i < 10000 && copystack_num_tasks() != 1; i++)
    copystack_sleep_ns(1000000);
  printf("after: %llu\n", (unsigned long long)copystack_num_tasks());
  copystack_get_stats(&s);
  printf("stack in use after: %llu\n", (unsigned long long)s.stack_inuse);
  return 0;
}
// CHECK: before: 1
// CHECK: parked: [[#N+1]]
// OFF: stack in use per task: {{20[0-9][0-9]}}
// CHECK: after: 1
// CHECK: stack in use after: {{[0-9]+}}
