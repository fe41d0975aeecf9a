// fork() while tasks run on every worker: 200 children in a row (50 in
// the verify and stress variants, where a fork copies the page tables of
// verify mode's stack mappings and took up to 100 s for 200), each of
// which goes on using tasks (starts some, passes values on channels,
// sleeps, waits on a wait group) and exits with their sum. Before the
// runtime took its locks around fork(), a child hung in 5-12% of runs,
// spinning on a scheduler lock a worker held at the moment of the fork.
// In a child, the inherited bouncers and echoes spin on a channel lock that
// a task of a vanished thread held (docs/tasks.md, "fork()"), each in a
// foreign call the monitor hands its worker's queue away from. A child's
// task preempted by such a worker would resume only on that thread, that
// is never (docs/limitations.md, "Preemption"): preemption is off here.
// Not under TSan, which stops a child of a multi-threaded process that
// starts threads (the child's workers) (docs/debugging.md).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_PREEMPT=0 %run %t %{forks} | FileCheck %s -D#N=%{forks}
#include "Inputs/check.h"
#include <sys/wait.h>
#include <unistd.h>

static copystack_chan *ping, *pong;
static volatile int stop;

// Busy in the parent: keeps the run queues, channel locks and the stack
// allocator (echo's growth) in use on every worker while main forks.
static void bouncer(void *arg) {
  (void)arg;
  int v = 0;
  while (!stop) {
    copystack_chan_send(ping, &v);
    copystack_chan_recv(pong, &v);
  }
}

static void echo(void *arg) {
  (void)arg;
  int v;
  while (copystack_chan_recv(ping, &v)) {
    cs_burn(20);
    v++;
    copystack_chan_send(pong, &v);
  }
}

static void nothing(void *arg) { (void)arg; }

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static copystack_chan *results;

static void child_worker(void *arg) {
  long v = (long)arg;
  cs_burn(100);
  copystack_sleep_ns(100 * 1000);
  copystack_chan_send(results, &v);
  copystack_waitgroup_done(&wg);
}

// In the child: tasks still work.
static int child_main(void) {
  results = copystack_chan_make(sizeof(long), 8);
  copystack_waitgroup_add(&wg, 4);
  for (long i = 1; i <= 4; ++i)
    copystack_go(child_worker, (void *)i);
  copystack_waitgroup_wait(&wg);
  long sum = 0;
  for (int i = 0; i < 4; ++i) {
    long v;
    copystack_chan_recv(results, &v);
    sum += v;
  }
  return (int)sum; // 10
}

int main(int argc, char **argv) {
  int children = argc > 1 ? atoi(argv[1]) : 200;
  ping = copystack_chan_make(sizeof(int), 0);
  pong = copystack_chan_make(sizeof(int), 0);
  for (int i = 0; i < 4; ++i) {
    copystack_go(bouncer, 0);
    copystack_go(echo, 0);
  }
  int ok = 0;
  for (int i = 0; i < children; ++i) {
    copystack_go(nothing, 0); // and the task structures' lists
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0)
      _exit(child_main());
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 10)
      ++ok;
    else
      printf("child %d: status %#x\n", i, status);
  }
  stop = 1;
  printf("children that used tasks: %d of %d\n", ok, children);
  return 0;
}
// CHECK: children that used tasks: [[#N]] of [[#N]]
