// A child of fork() has only the forking thread: a task running on another
// worker at that moment, or parked bound to another thread (a thread's
// start routine), is not in it. A child that waits for such a task used
// to hang at 0% CPU; it now stops as any deadlock does, and the dump names
// the task it waited for as lost in the fork. The parent goes on as
// before. No preemption: the spinning task keeps its worker until the fork
// (one preempted on the forking thread would resume in the child, and
// the child would not wait forever). And a fork from a task that
// copystack_run started from main: main, whose run it interrupted on the
// forking thread, is in the child (its fatal error's dump shows it as
// running, not lost).
// Not under TSan, which ends a forked child that starts threads (the
// runtime's fork handler starts the child's workers).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_WORKERS=2 COPYSTACK_PREEMPT=0 %run %t worker 2>&1 | FileCheck %s --check-prefix=WORKER
// RUN: env COPYSTACK_WORKERS=2 %run %t thread 2>&1 | FileCheck %s --check-prefix=THREAD
// RUN: %run %t nested 2>&1 | FileCheck %s --check-prefix=NESTED --implicit-check-not='lost in fork'
#include "Inputs/check.h"

#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static copystack_waitgroup done = COPYSTACK_WAITGROUP_INIT;
static volatile int started, stop;

static void spin(void *arg) {
  (void)arg;
  started = 1;
  while (!stop) {
  }
  copystack_waitgroup_done(&done);
}

static copystack_chan *gate;

// A thread's start routine: a task bound to its thread, parked in the
// receive when main forks.
static void *thread_main(void *arg) {
  (void)arg;
  started = 1;
  int v;
  copystack_chan_recv(gate, &v);
  copystack_waitgroup_done(&done);
  return NULL;
}

// Bound to main's thread by copystack_run: forks, and in the child closes
// a channel twice (a fatal error, whose dump lists every task).
static void nested(void *arg) {
  (void)arg;
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    copystack_chan *c = copystack_chan_make(sizeof(int), 0);
    copystack_chan_close(c);
    copystack_chan_close(c);
    _exit(0);
  }
  int status;
  REQUIRE(waitpid(child, &status, 0) == child);
  printf("nested child: exit %d\n", WEXITSTATUS(status));
}

// Waits for the child and says how it ended.
static void reap(pid_t child) {
  int status;
  REQUIRE(waitpid(child, &status, 0) == child);
  printf("child: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  if (strcmp(argv[1], "nested") == 0) {
    copystack_run(nested, NULL);
    printf("parent: done\n");
    return 0;
  }
  int worker = strcmp(argv[1], "worker") == 0;
  copystack_waitgroup_add(&done, 1);
  pthread_t th;
  if (worker) {
    copystack_go(spin, 0);
  } else {
    gate = copystack_chan_make(sizeof(int), 0);
    REQUIRE(pthread_create(&th, NULL, thread_main, NULL) == 0);
  }
  while (!started)
    copystack_sleep_ns(1000000);
  copystack_sleep_ns(20000000); // the thread's task parks in its receive
  fflush(stdout);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (worker) {
      stop = 1;
    } else {
      // The receiver is the lost task: the send hands it the value and
      // wakes it, and nothing runs it.
      int v = 1;
      copystack_chan_send(gate, &v);
    }
    copystack_waitgroup_wait(&done);
    printf("child: not reached\n");
    _exit(0);
  }
  reap(child);
  if (worker) {
    stop = 1;
  } else {
    int v = 1;
    copystack_chan_send(gate, &v);
    REQUIRE(pthread_join(th, NULL) == 0);
  }
  copystack_waitgroup_wait(&done);
  printf("parent: done\n");
  return 0;
}
// WORKER: fatal error: all tasks are asleep - deadlock!
// WORKER-DAG: task 2 [lost in fork(): it was on another thread of the parent]:
// WORKER-DAG: created by main at {{.*}}fork_lost_tasks.c:[[#@LINE-38]]
// WORKER-DAG: task 1 [wait group wait, {{[0-9]+}} {{ms|s}}]:
// WORKER: child: exit 2
// WORKER-NEXT: parent: done
// THREAD: fatal error: all tasks are asleep - deadlock!
// THREAD-DAG: task {{[0-9]+}} [lost in fork(): it was on another thread of the parent]:
// THREAD-DAG: task 1 [wait group wait, {{[0-9]+}} {{ms|s}}]:
// THREAD: child: exit 2
// THREAD-NEXT: parent: done
// NESTED: copystack: fatal: close of closed channel
// NESTED: task 1 [running on another thread]:
// NESTED: nested child: exit 2
// NESTED-NEXT: parent: done
