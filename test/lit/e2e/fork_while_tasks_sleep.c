// fork() while a task sleeps in a loop of 1 ms sleeps: the timer thread
// waits on its condition variable with a deadline at every fork. Each
// child sleeps on a task too, then exits. Before the child got a new
// condition variable, 17 children of 20 hung: glibc's condition variable
// still counted the parent's timer thread as its waiter, and the notify
// that should have woken the child's went to it. A child that hangs is
// ended by its alarm and the parent reports it. With "wait", each child
// also stops the sleepers and waits for them (one worker: none runs on
// another thread at the fork, so the child has them all). A fork while
// the timer thread was between taking a sleeper's timer and waking it
// would leave that sleeper asleep for good in the child: the fork waits
// for the timer being fired (sched/fork.cc; a window too narrow for this
// program to hit, 600 forks without a hang before).
// Not under TSan, which stops a child of a multi-threaded process that
// starts threads (the child's workers and timer thread) (docs/debugging.md).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: %run %t %{forks} | FileCheck %s -D#N=%{forks}
// RUN: env COPYSTACK_WORKERS=1 %run %t 20 | FileCheck %s -D#N=20
// RUN: env COPYSTACK_WORKERS=1 %run %t %{forks} wait | FileCheck %s -D#N=%{forks}
#include <copystack/copystack.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "Inputs/fork_tally.h"
#include <unistd.h>

static volatile int stop;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void sleeper(void *arg) {
  (void)arg;
  while (!stop)
    copystack_sleep_ns(1000 * 1000);
  copystack_waitgroup_done(&wg);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20;
  int join = argc > 2 && argv[2][0] == 'w';
  copystack_waitgroup_add(&wg, 2);
  copystack_go(sleeper, 0);
  copystack_go(sleeper, 0);
  struct cs_fork_tally t = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    copystack_sleep_ns((i % 3) * 300 * 1000); // forks at every phase
    pid_t pid = fork();
    if (pid == 0) {
      alarm(5);
      copystack_sleep_ns(2 * 1000 * 1000);
      copystack_sleep_ns(1000 * 1000);
      if (join) {
        stop = 1;
        copystack_waitgroup_wait(&wg);
      }
      _exit(7);
    }
    cs_wait_child(pid, &t);
  }
  stop = 1;
  copystack_waitgroup_wait(&wg);
  printf("%d children slept and exited, %d hung, %d failed otherwise\n", t.ok,
         t.hung, t.other);
  return t.ok != n;
}
// CHECK: [[#N]] children slept and exited, 0 hung, 0 failed otherwise
