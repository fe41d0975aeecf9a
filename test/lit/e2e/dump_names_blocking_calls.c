// The task dump names the blocking call a task is parked in, not only
// "IO wait": a pthread mutex, a condition variable, a semaphore, a
// read-write lock, a barrier, a sleep, a pipe read on the poller, and a
// flock made by one of the I/O threads.
// RUN: %cc %s -o %t
// Under qemu-user (7.2) preadv2 refuses RWF_NOWAIT (EOPNOTSUPP), so a pipe
// is read by the blocking call there (sched/io.cc, pipes_nowait), in a
// foreign call on another thread.
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s --check-prefixes=CHECK,%if qemu %{QEMU%} %else %{POLLER%}
#include "Inputs/check.h"
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t bar;
static sem_t sem;
static int pipe_fds[2];
static char lock_path[] = "/tmp/copystack-dump-flock-XXXXXX";

static void in_mutex(void *a) { (void)a; pthread_mutex_lock(&mu); }
static void in_cond(void *a) {
  (void)a;
  pthread_mutex_lock(&cmu);
  pthread_cond_wait(&cv, &cmu);
}
static void in_sem(void *a) { (void)a; sem_wait(&sem); }
static void in_rwlock(void *a) { (void)a; pthread_rwlock_wrlock(&rw); }
static void in_barrier(void *a) { (void)a; pthread_barrier_wait(&bar); }
static void in_sleep(void *a) { (void)a; sleep(100); }
static void in_read(void *a) {
  (void)a;
  char c;
  REQUIRE(read(pipe_fds[0], &c, 1) >= 0);
}
static void in_flock(void *a) {
  (void)a;
  int fd = open(lock_path, O_RDWR);
  REQUIRE(fd >= 0);
  flock(fd, LOCK_EX);
}

int main(void) {
  pthread_barrier_init(&bar, NULL, 2);
  sem_init(&sem, 0, 0);
  REQUIRE(pipe(pipe_fds) == 0);
  int lock_fd = mkstemp(lock_path);
  REQUIRE(lock_fd >= 0);
  REQUIRE(flock(lock_fd, LOCK_EX) == 0); // held by this open file
  pthread_mutex_lock(&mu);
  pthread_rwlock_rdlock(&rw);
  void (*fns[])(void *) = {in_mutex, in_cond,  in_sem,  in_rwlock,
                           in_barrier, in_sleep, in_read, in_flock};
  for (unsigned i = 0; i < sizeof fns / sizeof fns[0]; ++i)
    copystack_go(fns[i], 0);
  copystack_sleep_ns(200 * 1000 * 1000); // until they have all parked
  unlink(lock_path);
  raise(SIGQUIT);
  printf("not reached\n");
  return 0;
}
// The tasks in the order they were created (ids 2 to 9). A wait of a
// second or more reads "1 s": the dump runs the symbolizer before it
// prints, which on a loaded machine took the 200 ms wait past a second.
// CHECK: SIGQUIT: quit
// CHECK-DAG: [pthread_mutex_lock, {{[0-9]+}} {{m?s}}]:
// CHECK-DAG: [pthread_cond_wait, {{[0-9]+}} {{m?s}}]:
// CHECK-DAG: [sem_wait, {{[0-9]+}} {{m?s}}]:
// CHECK-DAG: [pthread_rwlock lock, {{[0-9]+}} {{m?s}}]:
// CHECK-DAG: [pthread_barrier_wait, {{[0-9]+}} {{m?s}}]:
// CHECK-DAG: [sleep, {{[0-9]+}} {{m?s}}]:
// POLLER-DAG: [IO wait, {{[0-9]+}} {{m?s}}]:
// QEMU-DAG: [running on another thread, in a foreign call from __copystack_blocking_read]:
// CHECK-DAG: [flock, on an I/O thread, {{[0-9]+}} {{m?s}}]:
// CHECK-NOT: not reached
