// fcntl's F_SETLKW and F_OFD_SETLKW, lockf's F_LOCK and waitid park the
// task while one of the runtime's I/O threads waits (sched/io_pool.cc);
// F_SETLK, F_OFD_SETLK, F_TLOCK and WNOHANG answer in place. The one
// worker keeps running a ticker task meanwhile (a 1 ms tick: at least 3
// during each wait of 100 ms or more, 0 or 1 if the wait held the
// worker, even on a loaded machine).
// - A child process holds a POSIX record lock on the file's first ten
//   bytes for 100 ms (record locks are the process's, so only another
//   process's lock makes this one wait): F_SETLK fails at once, F_SETLKW
//   waits and gets the lock when the child ends. The same with lockf.
// - Two open file descriptions of the file in this process: one task holds
//   an OFD lock on the first for 100 ms; another task's F_OFD_SETLK on the
//   second fails at once, its F_OFD_SETLKW waits for the first to let go.
// - waitid(P_PID, child, WEXITED): WNOHANG says nothing yet (si_pid 0);
//   without it, the task parks until the child exits, and siginfo_t says
//   how it did.
// Not under TSan, which ends a forked child that starts threads (the
// runtime's fork handler starts the child's workers).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t %t.lock | FileCheck %s
// The same with the 64-bit names glibc's headers use then (lockf64,
// fcntl64):
// RUN: %cc -D_FILE_OFFSET_BITS=64 %s -o %t.64
// RUN: env COPYSTACK_WORKERS=1 %run %t.64 %t.lock | FileCheck %s
#define _GNU_SOURCE
#include "Inputs/check.h"
#include "Inputs/ticker.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *path;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;   // the ticker
static copystack_waitgroup work = COPYSTACK_WAITGROUP_INIT; // the others

static const char *busy(int r, int err) {
  return r == -1 && (err == EAGAIN || err == EACCES) ? "busy" : "?";
}

// Ten bytes from start (record locks and OFD locks conflict with each
// other: each part of the test has its own bytes).
static struct flock range(short type, off_t start) {
  struct flock fl = {0};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = start;
  fl.l_len = 10;
  return fl;
}

// A child that takes the first ten bytes with lockf or fcntl, says so on
// the pipe and holds them for 100 ms.
static pid_t holding_child(int use_lockf) {
  int p[2];
  REQUIRE(pipe(p) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int fd = open(path, O_RDWR);
    struct flock fl = range(F_WRLCK, 0);
    int r = use_lockf ? lockf(fd, F_TLOCK, 10) : fcntl(fd, F_SETLK, &fl);
    char c = r == 0 ? 'y' : 'n';
    REQUIRE(write(p[1], &c, 1) == 1);
    usleep(100000);
    _exit(0); // the lock goes with the process
  }
  close(p[1]);
  char c = 0;
  REQUIRE(read(p[0], &c, 1) == 1 && c == 'y');
  close(p[0]);
  return child;
}

static void record_locks(void *arg) {
  (void)arg;
  int fd = open(path, O_RDWR);
  REQUIRE(fd >= 0);
  pid_t child = holding_child(0);
  struct flock fl = range(F_WRLCK, 0);
  int r = fcntl(fd, F_SETLK, &fl);
  printf("F_SETLK while the child holds it: %s\n", busy(r, errno));
  long t0 = cs_ticks();
  r = fcntl(fd, F_SETLKW, &fl);
  long t1 = cs_ticks();
  printf("F_SETLKW: %d; others ran: %s\n", r, t1 - t0 >= 3 ? "yes" : "NO");
  fl.l_type = F_UNLCK;
  REQUIRE(fcntl(fd, F_SETLK, &fl) == 0);
  int status;
  REQUIRE(waitpid(child, &status, 0) == child);

  child = holding_child(1);
  REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
  r = lockf(fd, F_TLOCK, 10);
  printf("F_TLOCK while the child holds it: %s\n", busy(r, errno));
  t0 = cs_ticks();
  r = lockf(fd, F_LOCK, 10);
  t1 = cs_ticks();
  printf("lockf F_LOCK: %d; others ran: %s\n", r, t1 - t0 >= 3 ? "yes" : "NO");
  REQUIRE(lockf(fd, F_ULOCK, 10) == 0);
  REQUIRE(waitpid(child, &status, 0) == child);
  close(fd);
  copystack_waitgroup_done(&work);
}

static copystack_waitgroup ofd_held = COPYSTACK_WAITGROUP_INIT;

static void ofd_holder(void *arg) {
  (void)arg;
  int fd = open(path, O_RDWR);
  struct flock fl = range(F_WRLCK, 20);
  REQUIRE(fcntl(fd, F_OFD_SETLK, &fl) == 0);
  copystack_waitgroup_done(&ofd_held);
  copystack_sleep_ns(100000000);
  fl.l_type = F_UNLCK;
  REQUIRE(fcntl(fd, F_OFD_SETLK, &fl) == 0);
  close(fd);
  copystack_waitgroup_done(&work);
}

static void ofd_waiter(void *arg) {
  (void)arg;
  copystack_waitgroup_wait(&ofd_held);
  int fd = open(path, O_RDWR);
  struct flock fl = range(F_WRLCK, 20);
  int r = fcntl(fd, F_OFD_SETLK, &fl);
  printf("F_OFD_SETLK while the other holds it: %s\n", busy(r, errno));
  long t0 = cs_ticks();
  r = fcntl(fd, F_OFD_SETLKW, &fl);
  long t1 = cs_ticks();
  printf("F_OFD_SETLKW: %d; others ran: %s\n", r,
         t1 - t0 >= 3 ? "yes" : "NO");
  close(fd);
  copystack_waitgroup_done(&work);
}

static void waitid_task(void *arg) {
  (void)arg;
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    usleep(150000);
    _exit(5);
  }
  siginfo_t info = {0};
  int r = waitid(P_PID, (id_t)child, &info, WEXITED | WNOHANG);
  printf("waitid WNOHANG: %d, si_pid %d\n", r, (int)info.si_pid);
  long t0 = cs_ticks();
  r = waitid(P_PID, (id_t)child, &info, WEXITED);
  long t1 = cs_ticks();
  printf("waitid: %d, %s, %s %d; others ran: %s\n", r,
         info.si_pid == child ? "the child" : "?",
         info.si_code == CLD_EXITED ? "exited" : "?", info.si_status,
         t1 - t0 >= 3 ? "yes" : "NO");
  copystack_waitgroup_done(&work);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  path = argv[1];
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0 && write(fd, "0123456789", 10) == 10);
  close(fd);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(cs_ticker, &wg);

  // One part at a time: a forked child goes on with the parent's tasks
  // (docs/tasks.md, "fork()"), which must not be in the middle of a part.
  copystack_waitgroup_add(&work, 1);
  copystack_go(record_locks, 0);
  copystack_waitgroup_wait(&work);
  copystack_waitgroup_add(&ofd_held, 1);
  copystack_waitgroup_add(&work, 2);
  copystack_go(ofd_holder, 0);
  copystack_go(ofd_waiter, 0);
  copystack_waitgroup_wait(&work);
  copystack_waitgroup_add(&work, 1);
  copystack_go(waitid_task, 0);
  copystack_waitgroup_wait(&work);
  cs_ticker_stop();
  copystack_waitgroup_wait(&wg);
  unlink(path);
  return 0;
}
// CHECK: F_SETLK while the child holds it: busy
// CHECK-NEXT: F_SETLKW: 0; others ran: yes
// CHECK-NEXT: F_TLOCK while the child holds it: busy
// CHECK-NEXT: lockf F_LOCK: 0; others ran: yes
// CHECK-NEXT: F_OFD_SETLK while the other holds it: busy
// CHECK-NEXT: F_OFD_SETLKW: 0; others ran: yes
// CHECK-NEXT: waitid WNOHANG: 0, si_pid 0
// CHECK-NEXT: waitid: 0, the child, exited 5; others ran: yes
