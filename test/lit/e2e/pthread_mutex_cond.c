// pthread mutexes and condition variables park tasks and keep their
// meaning (docs/tasks.md, "Blocking calls"; sched/pthread_sync.cc):
// - 2,000 tasks wait on one condition variable behind one mutex: the
//   process has no more threads than its workers, the monitor and the
//   timer thread; a broadcast wakes them all.
// - A recursive mutex is a task's, not its thread's: taken twice, held
//   across a park and a move to another worker, released twice; another
//   task on the same thread cannot take it meanwhile (EBUSY).
// - An error-checking mutex: EDEADLK on a second lock, EPERM on an unlock
//   by another task.
// - Timeouts: pthread_mutex_timedlock, pthread_cond_timedwait on the
//   system clock and on a CLOCK_MONOTONIC condition variable,
//   pthread_cond_clockwait: ETIMEDOUT, never early, the mutex held again.
// - A plain thread (outside tasks: COPYSTACK_THREADS=0 makes it one) and
//   tasks share a mutex and a condition variable both ways.
// - POSIX semaphores: 1,000 tasks wait on one (few threads); a task and a
//   plain thread post; sem_timedwait times out with ETIMEDOUT.
// - No starvation: a task that locks and unlocks in a loop for 200 ms
//   does not keep a waiting task off the mutex until it stops (the waiter
//   gets it from an unlock once it has waited 1 ms; without that it woke
//   on the same worker only to find the mutex taken again).
// RUN: %cc %s -o %t -lpthread
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 COPYSTACK_THREADS=0 %run %t | FileCheck %s
// The same in a static executable, whose interposers are --wrap'ed (not
// under TSan, whose runtime cannot be linked statically):
// RUN: %if !tsan %{ %cc -static %s -o %t.static -lpthread %}
// RUN: %if !tsan %{ env COPYSTACK_WORKERS=2 %run %t.static | FileCheck %s %}
#define _GNU_SOURCE
#include "Inputs/check.h"
#include "Inputs/deadline.h"

#include "Inputs/thread_count.h"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go_flag, waiting;
static long woke;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  waiting++;
  while (!go_flag)
    pthread_cond_wait(&cv, &mu);
  woke++;
  pthread_mutex_unlock(&mu);
  copystack_waitgroup_done(&wg);
}

static void many_wait(void) {
  enum { kTasks = 2000 };
  copystack_waitgroup_add(&wg, kTasks);
  for (int i = 0; i < kTasks; i++)
    copystack_go(waiter, 0);
  for (;;) {
    pthread_mutex_lock(&mu);
    int n = waiting;
    pthread_mutex_unlock(&mu);
    if (n == kTasks)
      break;
    copystack_sleep_ns(1000000);
  }
  int threads = cs_thread_count();
  pthread_mutex_lock(&mu);
  go_flag = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  copystack_waitgroup_wait(&wg);
  printf("woke %ld, threads while waiting: %s\n", woke,
         threads <= 6 + CS_LOAD_SPARES ? "few" : "MANY");
  if (threads > 6)
    printf("%d threads\n", threads);
}

static pthread_mutex_t rec, chk;
static int rec_results[4];

static void recursive_owner(void *arg) {
  (void)arg;
  rec_results[0] = pthread_mutex_lock(&rec);
  rec_results[1] = pthread_mutex_lock(&rec);
  cs_burn(50);
  copystack_sleep_ns(20 * 1000 * 1000); // parked holding it; may move
  copystack_yield();
  rec_results[2] = pthread_mutex_unlock(&rec);
  rec_results[3] = pthread_mutex_unlock(&rec);
  copystack_waitgroup_done(&wg);
}

static int other_try;
static void recursive_other(void *arg) {
  (void)arg;
  other_try = pthread_mutex_trylock(&rec);
  copystack_waitgroup_done(&wg);
}

static int chk_results[3];
static void errorcheck_owner(void *arg) {
  (void)arg;
  chk_results[0] = pthread_mutex_lock(&chk);
  chk_results[1] = pthread_mutex_lock(&chk);
  copystack_sleep_ns(20 * 1000 * 1000);
  pthread_mutex_unlock(&chk);
  copystack_waitgroup_done(&wg);
}
static void errorcheck_other(void *arg) {
  (void)arg;
  chk_results[2] = pthread_mutex_unlock(&chk);
  copystack_waitgroup_done(&wg);
}

static void kinds(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&rec, &a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&chk, &a);
  pthread_mutexattr_destroy(&a);
  copystack_waitgroup_add(&wg, 2);
  copystack_go(recursive_owner, 0);
  copystack_sleep_ns(5 * 1000 * 1000);
  copystack_go(recursive_other, 0);
  copystack_waitgroup_wait(&wg);
  printf("recursive: %d %d %d %d, other task: %s\n", rec_results[0],
         rec_results[1], rec_results[2], rec_results[3],
         other_try == EBUSY ? "EBUSY" : "TOOK IT");
  copystack_waitgroup_add(&wg, 2);
  copystack_go(errorcheck_owner, 0);
  copystack_sleep_ns(5 * 1000 * 1000);
  copystack_go(errorcheck_other, 0);
  copystack_waitgroup_wait(&wg);
  printf("errorcheck: %d %s %s\n", chk_results[0],
         chk_results[1] == EDEADLK ? "EDEADLK" : "?",
         chk_results[2] == EPERM ? "EPERM" : "?");
  printf("destroy: %d %d\n", pthread_mutex_destroy(&rec),
         pthread_mutex_destroy(&chk));
  // The default kind's fast paths (pthread_sync.cc, trylock_default_kind)
  // keep glibc's fields: the owner word while held, the count of users;
  // an adaptive mutex (another kind: the general path) the same.
  for (int adaptive = 0; adaptive < 2; ++adaptive) {
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    if (adaptive) {
      pthread_mutexattr_init(&a);
      pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
      pthread_mutex_init(&m, &a);
      pthread_mutexattr_destroy(&a);
    }
    int first = pthread_mutex_trylock(&m);
    int owned = m.__data.__owner != 0, users = m.__data.__nusers;
    int again = pthread_mutex_trylock(&m);
    int unlocked = pthread_mutex_unlock(&m);
    int owner_after = m.__data.__owner, users_after = m.__data.__nusers;
    int relock = pthread_mutex_lock(&m);
    printf("%s: %d %s, owner %s, users %d; unlock %d, owner %d, users %d; "
           "lock %d\n", adaptive ? "adaptive" : "default", first,
           again == EBUSY ? "EBUSY" : "?", owned ? "set" : "0", users,
           unlocked, owner_after, users_after, relock);
    pthread_mutex_unlock(&m);
  }
}

static void holder(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  copystack_sleep_ns(60 * 1000 * 1000);
  pthread_mutex_unlock(&mu);
  copystack_waitgroup_done(&wg);
}

static void timeouts(void) {
  copystack_waitgroup_add(&wg, 1);
  copystack_go(holder, 0);
  copystack_sleep_ns(5 * 1000 * 1000);
  struct timespec t = in_ms(CLOCK_REALTIME, 20);
  int r = pthread_mutex_timedlock(&mu, &t);
  printf("timedlock: %s, %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : "?",
         reached(CLOCK_REALTIME, t) ? "on time" : "EARLY");
  copystack_waitgroup_wait(&wg);

  pthread_cond_t mono;
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&mono, &ca);
  pthread_condattr_destroy(&ca);
  pthread_mutex_lock(&mu);
  t = in_ms(CLOCK_REALTIME, 20);
  r = pthread_cond_timedwait(&cv, &mu, &t);
  int held = pthread_mutex_trylock(&mu) == EBUSY;
  printf("timedwait: %s, %s, held %d\n", r == ETIMEDOUT ? "ETIMEDOUT" : "?",
         reached(CLOCK_REALTIME, t) ? "on time" : "EARLY", held);
  t = in_ms(CLOCK_MONOTONIC, 20);
  r = pthread_cond_timedwait(&mono, &mu, &t);
  printf("monotonic: %s, %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : "?",
         reached(CLOCK_MONOTONIC, t) ? "on time" : "EARLY");
  t = in_ms(CLOCK_MONOTONIC, 20);
  r = pthread_cond_clockwait(&cv, &mu, CLOCK_MONOTONIC, &t);
  printf("clockwait: %s, %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : "?",
         reached(CLOCK_MONOTONIC, t) ? "on time" : "EARLY");
  pthread_mutex_unlock(&mu);
  pthread_cond_destroy(&mono);
}

// A thread and tasks: the thread waits for the tasks' count on the
// condition variable, the tasks for the thread's start signal, and both
// add under the mutex.
static long counter;
static int started;

static void adder(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  while (!started)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(&mu);
    counter++;
    if (i % 100 == 0)
      copystack_yield(); // parked holding it: the thread waits
    pthread_mutex_unlock(&mu);
  }
  pthread_mutex_lock(&mu);
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  copystack_waitgroup_done(&wg);
}

static void *thread_body(void *arg) {
  (void)arg;
  usleep(10 * 1000); // a plain thread's sleep, or its bound task's
  pthread_mutex_lock(&mu);
  started = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(&mu);
    counter++;
    pthread_mutex_unlock(&mu);
  }
  pthread_mutex_lock(&mu);
  while (counter < 5000)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return 0;
}

static void with_thread(void) {
  copystack_waitgroup_add(&wg, 4);
  for (int i = 0; i < 4; i++)
    copystack_go(adder, 0);
  pthread_t th;
  pthread_create(&th, 0, thread_body, 0);
  pthread_join(th, 0);
  copystack_waitgroup_wait(&wg);
  printf("with a thread: %ld\n", counter);
}

static volatile int looping_done;
static long loops, saw = -1;

static void looper(void *arg) {
  (void)arg;
  // Held nearly all the time: the time slice ends inside it (at the
  // spin's loop poll), and the waiter, run then, finds it held.
  uint64_t end = copystack_now_ns() + 200 * 1000 * 1000;
  for (int more = 1; more;) {
    pthread_mutex_lock(&mu);
    loops++;
    for (volatile int i = 0; i < 2000; i++)
      ;
    more = copystack_now_ns() < end;
    pthread_mutex_unlock(&mu);
  }
  looping_done = 1;
  copystack_waitgroup_done(&wg);
}

static void latecomer(void *arg) {
  (void)arg;
  copystack_sleep_ns(5 * 1000 * 1000);
  pthread_mutex_lock(&mu);
  saw = looping_done ? -2 : loops;
  pthread_mutex_unlock(&mu);
  copystack_waitgroup_done(&wg);
}

static void no_starvation(void) {
  copystack_waitgroup_add(&wg, 2);
  copystack_go(looper, 0);
  copystack_go(latecomer, 0);
  copystack_waitgroup_wait(&wg);
  printf("latecomer: %s\n", saw >= 0 ? "got it while the loop ran"
                                     : "STARVED UNTIL THE LOOP ENDED");
}

static sem_t sem;
static long sem_got;

static void sem_waiter(void *arg) {
  (void)arg;
  if (sem_wait(&sem) == 0)
    __atomic_fetch_add(&sem_got, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

static void *sem_poster(void *arg) {
  (void)arg;
  for (int i = 0; i < 500; i++)
    sem_post(&sem);
  return 0;
}

static void semaphores(void) {
  enum { kTasks = 1000 };
  sem_init(&sem, 0, 0);
  copystack_waitgroup_add(&wg, kTasks);
  for (int i = 0; i < kTasks; i++)
    copystack_go(sem_waiter, 0);
  copystack_sleep_ns(20 * 1000 * 1000);
  int threads = cs_thread_count();
  pthread_t th;
  pthread_create(&th, 0, sem_poster, 0);
  for (int i = 0; i < 500; i++)
    sem_post(&sem);
  pthread_join(th, 0);
  copystack_waitgroup_wait(&wg);
  struct timespec t = in_ms(CLOCK_REALTIME, 20);
  int r = sem_timedwait(&sem, &t);
  int err = errno;
  printf("semaphore: %ld, threads while waiting: %s; timed: %d %s, %s\n",
         sem_got, threads <= 6 + CS_LOAD_SPARES ? "few" : "MANY", r,
         err == ETIMEDOUT ? "ETIMEDOUT" : "?",
         reached(CLOCK_REALTIME, t) ? "on time" : "EARLY");
  sem_destroy(&sem);
}

int main(void) {
  many_wait();
  kinds();
  timeouts();
  with_thread();
  semaphores();
  no_starvation();
  printf("done\n");
  return 0;
}
// CHECK: woke 2000, threads while waiting: few
// CHECK: recursive: 0 0 0 0, other task: EBUSY
// CHECK: errorcheck: 0 EDEADLK EPERM
// CHECK: destroy: 0 0
// CHECK: default: 0 EBUSY, owner set, users 1; unlock 0, owner 0, users 0; lock 0
// CHECK: adaptive: 0 EBUSY, owner set, users 1; unlock 0, owner 0, users 0; lock 0
// CHECK: timedlock: ETIMEDOUT, on time
// CHECK: timedwait: ETIMEDOUT, on time, held 1
// CHECK: monotonic: ETIMEDOUT, on time
// CHECK: clockwait: ETIMEDOUT, on time
// CHECK: with a thread: 5000
// CHECK: semaphore: 1000, threads while waiting: few; timed: -1 ETIMEDOUT, on time
// CHECK: latecomer: got it while the loop ran
// CHECK: done
