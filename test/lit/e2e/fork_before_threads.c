// fork() from a main that has not yet spawned or parked: the process is
// still one thread (the other workers and the monitor start at main's
// first spawn or park), so the child is a copy of all of it, and it starts
// its own threads when it first uses tasks, as the parent does after it.
// Not under TSan, which counts its own background thread and stops a child
// that starts threads (docs/limitations.md).
// UNSUPPORTED: tsan
// Under qemu-user the process has qemu's own thread (its RCU thread) too.
// RUN: %cc %s -o %t && %run %t | FileCheck %s --check-prefixes=CHECK,%if qemu %{QEMU%} %else %{NATIVE%}
#include "Inputs/check.h"
#include <sys/wait.h>
#include <unistd.h>

static int threads(void) {
  FILE *f = fopen("/proc/self/status", "r");
  REQUIRE(f);
  char line[256];
  int n = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1)
      break;
  fclose(f);
  return n;
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static long sum;

static void add(void *arg) {
  __atomic_add_fetch(&sum, (long)(intptr_t)arg, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

// Ten tasks, a wait, a sleep: what the threads are for.
static long use_tasks(void) {
  copystack_waitgroup_add(&wg, 10);
  for (int i = 1; i <= 10; i++)
    copystack_go(add, (void *)(intptr_t)i);
  copystack_waitgroup_wait(&wg);
  copystack_sleep_ns(1000 * 1000);
  return sum;
}

int main(void) {
  int before = threads();
  fflush(stdout);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0)
    _exit(use_tasks() == 55 && threads() > 1 ? 0 : 1);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  printf("threads before the fork: %d\n", before);
  printf("child: %s\n",
         WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "FAILED");
  printf("parent: %ld, threads after: %s\n", use_tasks(),
         threads() > 1 ? "more" : "one");
  return 0;
}
// NATIVE: threads before the fork: 1
// QEMU: threads before the fork: 2
// CHECK-NEXT: child: ok
// CHECK-NEXT: parent: 55, threads after: more
