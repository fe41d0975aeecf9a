// fork() while tasks wait on a condition variable, a semaphore and a
// futex word (the futex table, sched/netpoll.cc), and two other tasks
// lock and unlock another mutex in a loop (their waits and hand-offs go
// through the same table). Each child finds its copies of the waiting
// tasks (parked tasks are in the child, and so are tasks in the middle of
// parking, which the fork waits for: fork_mid_park.c; the lockers, running
// on other workers at the fork, may not be, and their mutex may stay
// locked there, as a thread's would), signals, posts and wakes them, waits
// for all of them, and exits: a bucket lock caught held at the fork would
// hang it (its alarm ends it then, and the parent reports it). The parent
// then releases its own waiters. The first fork comes once every waiter
// has said it is about to wait, and 10 ms later: a waiter still running
// its own code at a fork (slow to start, in stress mode, on a busy
// machine) would not be in the child, as a thread would not.
// Not under TSan, which stops a child of a multi-threaded process that
// starts threads (docs/debugging.md).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: %run %t %{forks} | FileCheck %s -D#N=%{forks}
// RUN: env COPYSTACK_WORKERS=1 %run %t 20 | FileCheck %s -D#N=20
#define _GNU_SOURCE
#include <copystack/copystack.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include "Inputs/fork_tally.h"
#include <unistd.h>

enum { kEach = 10 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t busy_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go_flag;
static sem_t sem;
static int word;
static volatile int stop;
static copystack_waitgroup waiters = COPYSTACK_WAITGROUP_INIT;
static copystack_waitgroup lockers = COPYSTACK_WAITGROUP_INIT;
static int about_to_wait;

static void waiting(void) {
  __atomic_fetch_add(&about_to_wait, 1, __ATOMIC_RELEASE);
}

static void cond_waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  waiting();
  while (!go_flag)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  copystack_waitgroup_done(&waiters);
}

static void sem_waiter(void *arg) {
  (void)arg;
  waiting();
  sem_wait(&sem);
  copystack_waitgroup_done(&waiters);
}

static void word_waiter(void *arg) {
  (void)arg;
  waiting();
  while (!__atomic_load_n(&word, __ATOMIC_ACQUIRE))
    syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  copystack_waitgroup_done(&waiters);
}

static void locker(void *arg) {
  (void)arg;
  long n = 0;
  while (!stop) {
    pthread_mutex_lock(&busy_mu);
    n++;
    pthread_mutex_unlock(&busy_mu);
    if (n % 64 == 0)
      copystack_yield();
  }
  copystack_waitgroup_done(&lockers);
}

static void release_all(void) {
  pthread_mutex_lock(&mu);
  go_flag = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < kEach; i++)
    sem_post(&sem);
  __atomic_store_n(&word, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
  copystack_waitgroup_wait(&waiters);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20;
  sem_init(&sem, 0, 0);
  copystack_waitgroup_add(&waiters, 3 * kEach);
  for (int i = 0; i < kEach; i++) {
    copystack_go(cond_waiter, 0);
    copystack_go(sem_waiter, 0);
    copystack_go(word_waiter, 0);
  }
  copystack_waitgroup_add(&lockers, 2);
  copystack_go(locker, 0);
  copystack_go(locker, 0);
  while (__atomic_load_n(&about_to_wait, __ATOMIC_ACQUIRE) < 3 * kEach)
    copystack_sleep_ns(1000 * 1000);
  copystack_sleep_ns(10 * 1000 * 1000); // all of them waiting
  struct cs_fork_tally t = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    copystack_sleep_ns((i % 3) * 300 * 1000);
    pid_t pid = fork();
    if (pid == 0) {
      alarm(5);
      release_all();
      _exit(7);
    }
    cs_wait_child(pid, &t);
  }
  stop = 1;
  copystack_waitgroup_wait(&lockers);
  release_all();
  printf("%d children released their waiters and exited, %d hung, %d failed "
         "otherwise; the parent's released too\n",
         t.ok, t.hung, t.other);
  return t.ok != n;
}
// CHECK: [[#N]] children released their waiters and exited, 0 hung, 0 failed otherwise; the parent's released too
