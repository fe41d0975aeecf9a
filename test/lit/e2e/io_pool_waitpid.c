// waitpid and wait park the task while one of the runtime's I/O threads
// waits for the child (sched/io_pool.cc); WNOHANG answers in place. The
// one worker keeps running another task meanwhile. And a fork while a
// task's call runs on an I/O thread: in the child, whose I/O threads are
// gone, that call fails with EINTR (the task runs on); in the parent it
// completes.
// Not under TSan, which ends a forked child that starts threads (the
// runtime's fork handler starts the child's workers).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t %t.lock | FileCheck %s
// RUN: env COPYSTACK_WORKERS=2 %run %t %t.lock | FileCheck %s
#include "Inputs/check.h"
#include "Inputs/ticker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

// A spawned task, on the worker the ticker needs too (main may be its
// thread's own task).
static void waiter(void *arg) {
  (void)arg;
  pid_t child = fork();
  if (child == 0) {
    usleep(50000);
    _exit(7);
  }
  int status = 0;
  printf("WNOHANG: %d\n", (int)waitpid(child, &status, WNOHANG));
  long t0 = cs_ticks();
  pid_t got = waitpid(child, &status, 0);
  long t1 = cs_ticks();
  printf("waitpid: %s, exit %d; others ran: %s\n",
         got == child ? "the child" : "?",
         WIFEXITED(status) ? WEXITSTATUS(status) : -1,
         t1 - t0 >= 10 ? "yes" : "NO");
  child = fork();
  if (child == 0)
    _exit(3);
  got = wait(&status);
  printf("wait: %s, exit %d\n", got == child ? "the child" : "?",
         WEXITSTATUS(status));
  cs_ticker_stop();
  copystack_waitgroup_done(&wg);
}

// /proc/self/task/TID/FILE's first bytes, or "" when it cannot be read.
static void task_file(const char *tid, const char *file, char *buf,
                      size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%s/%s", tid, file);
  memset(buf, 0, size);
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return;
  if (read(fd, buf, size - 1) < 0)
    buf[0] = 0;
  close(fd);
}

// Whether a thread's system call is nr now.
static int in_syscall(const char *tid, long nr) {
  char buf[32], want[16];
  task_file(tid, "syscall", buf, sizeof buf);
  snprintf(want, sizeof want, "%ld ", nr);
  return strncmp(buf, want, strlen(want)) == 0;
}

// Whether a thread of this process is in flock(2) now (the I/O thread
// that runs the locker's call): /proc/self/task/*/syscall names it. The
// fork below must come while the call runs, not while it waits in the
// pool's queue for a thread (a queued call runs in the child, where it
// would wait for the parent's lock while the parent waits for the child:
// on a loaded machine a 20 ms sleep was not always enough).
static int flock_running(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return 0;
  int found = 0;
  struct dirent *e;
  while (!found && (e = readdir(d)))
    found = e->d_name[0] != '.' && in_syscall(e->d_name, SYS_flock);
  closedir(d);
  return found;
}

// Whether every other worker thread waits for work (in futex(2)): then
// the locker, which can only run on a worker, has parked. A fork between
// the call's hand-off to the I/O thread and the locker's park would find
// it running on another worker, which the child does not inherit
// (sched/fork.cc): the child waited for it forever, once in a full run
// of the suite under UBSan.
static int other_workers_idle(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return 0;
  long self = syscall(SYS_gettid);
  int busy = 0;
  struct dirent *e;
  while (!busy && (e = readdir(d))) {
    if (e->d_name[0] == '.' || atol(e->d_name) == self)
      continue;
    char name[32];
    task_file(e->d_name, "comm", name, sizeof name);
    busy = strncmp(name, "copystack-w", 11) == 0 &&
           !in_syscall(e->d_name, SYS_futex);
  }
  closedir(d);
  return !busy;
}

static int lock_result = -2, lock_errno;
static copystack_waitgroup locked = COPYSTACK_WAITGROUP_INIT;

static void locker(void *arg) {
  int fd = open((const char *)arg, O_RDONLY);
  REQUIRE(fd >= 0);
  int r = flock(fd, LOCK_EX); // main holds it: an I/O thread waits
  lock_errno = errno;
  __atomic_store_n(&lock_result, r, __ATOMIC_RELAXED);
  close(fd);
  copystack_waitgroup_done(&locked);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  copystack_waitgroup_add(&wg, 2);
  copystack_go(cs_ticker, &wg);
  copystack_go(waiter, 0);
  copystack_waitgroup_wait(&wg);

  int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0 && flock(fd, LOCK_EX) == 0);
  copystack_waitgroup_add(&locked, 1);
  copystack_go(locker, argv[1]);
  for (int i = 0; i < 10000 && !(flock_running() && other_workers_idle());
       i++)
    copystack_sleep_ns(1000000);
  REQUIRE(flock_running() && other_workers_idle());
  pid_t child = fork();
  if (child == 0) {
    copystack_waitgroup_wait(&locked);
    printf("child: flock %d %s\n", lock_result,
           lock_errno == EINTR ? "EINTR" : "?");
    fflush(stdout);
    _exit(0);
  }
  int status;
  REQUIRE(waitpid(child, &status, 0) == child);
  flock(fd, LOCK_UN);
  copystack_waitgroup_wait(&locked);
  printf("parent: flock %d\n", lock_result);
  close(fd);
  unlink(argv[1]);
  return 0;
}
// CHECK: WNOHANG: 0
// CHECK: waitpid: the child, exit 7; others ran: yes
// CHECK: wait: the child, exit 3
// CHECK: child: flock -1 EINTR
// CHECK: parent: flock 0
