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

#include <errno.h>
#include <fcntl.h>
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
  copystack_sleep_ns(20000000);
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
