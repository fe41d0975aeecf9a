// Under ThreadSanitizer, pthread locks, semaphores, barriers and once flags
// still park tasks, and TSan still sees what they order: the runtime's
// interposers override TSan's interceptors of these names and tell TSan
// what glibc's would have told it (sched/pthread_sync.cc).
// - ok: 1,000 tasks wait on one condition variable behind one mutex on a
//   handful of threads, then each bumps a plain counter under the mutex;
//   writers and readers share a table under a read-write lock; a
//   semaphore hands a value over; a barrier separates writes from reads;
//   pthread_once's initializer comes before every caller that finds it
//   done. Tasks switch without ordering each other for TSan, so each of
//   these would be a race report if the primitive did not say so.
// - race: a counter bumped under the mutex by one task and without it by
//   another is a race, and TSan names the mutex the first one held.
// - inversion: two tasks take two mutexes in opposite orders (one after
//   the other, never deadlocking): TSan reports the lock-order inversion.
// - deadlock: one task takes a then b; then two tasks at once, each
//   holding its first mutex when it asks for its second: a real deadlock,
//   which TSan reports as the inversion it is before the tasks park for
//   good (the runtime tells it of a lock's wait before it parks, as TSan's
//   interceptors do before they block; with no earlier a-then-b, TSan's
//   deadlock detector has no order to compare with, and a first-time
//   deadlock goes unreported, with or without copystack).
// RUN: %cc -fsanitize=thread %s -o %t -lpthread
// RUN: env COPYSTACK_WORKERS=2 TSAN_OPTIONS=halt_on_error=1 %run %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not=ThreadSanitizer
// RUN: env COPYSTACK_WORKERS=1 TSAN_OPTIONS=halt_on_error=1 %run %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not=ThreadSanitizer
// RUN: env COPYSTACK_WORKERS=2 TSAN_OPTIONS=halt_on_error=1 %exits 66 %run %t race 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: env COPYSTACK_WORKERS=2 TSAN_OPTIONS=halt_on_error=1 %exits 66 %run %t inversion 2>&1 | FileCheck %s --check-prefix=INVERSION
// RUN: env COPYSTACK_WORKERS=2 TSAN_OPTIONS=halt_on_error=1 %exits 66 %run %t deadlock 2>&1 | FileCheck %s --check-prefix=DEADLOCK
#define _GNU_SOURCE
#include "Inputs/check.h"
#include "Inputs/thread_count.h"

#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <unistd.h>

enum { kWaiters = 1000, kReaders = 100, kWriters = 10, kParties = 8 };

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

// ---- ok
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int waiting, go;
static long counter; // under m

static void waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  ++waiting;
  while (!go)
    pthread_cond_wait(&cv, &m);
  ++counter;
  pthread_mutex_unlock(&m);
  copystack_waitgroup_done(&wg);
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long table[kWriters]; // under rw

static void writer(void *arg) {
  long i = (long)arg;
  pthread_rwlock_wrlock(&rw);
  table[i] += i;
  usleep(1000); // readers wait meanwhile
  pthread_rwlock_unlock(&rw);
  copystack_waitgroup_done(&wg);
}

static void reader(void *arg) {
  long *sum = arg;
  pthread_rwlock_rdlock(&rw);
  for (int i = 0; i < kWriters; ++i)
    *sum += table[i];
  pthread_rwlock_unlock(&rw);
  copystack_waitgroup_done(&wg);
}

static sem_t ready;
static long payload; // written before sem_post, read after sem_wait

static void consumer(void *arg) {
  long *seen = arg;
  sem_wait(&ready);
  *seen = payload;
  copystack_waitgroup_done(&wg);
}

static pthread_barrier_t barrier;
static long slots[kParties]; // each written by one task before the barrier

static void party(void *arg) {
  long i = (long)arg, sum = 0;
  slots[i] = i + 1;
  pthread_barrier_wait(&barrier);
  for (int j = 0; j < kParties; ++j)
    sum += slots[j];
  REQUIRE(sum == kParties * (kParties + 1) / 2);
  copystack_waitgroup_done(&wg);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static long config; // written by the initializer

static void init_config(void) { config = 7; }

static void configured(void *arg) {
  (void)arg;
  pthread_once(&once, init_config);
  REQUIRE(config == 7);
  copystack_waitgroup_done(&wg);
}

static void ok(void) {
  copystack_waitgroup_add(&wg, kWaiters);
  for (int i = 0; i < kWaiters; ++i)
    copystack_go(waiter, 0);
  for (;;) {
    pthread_mutex_lock(&m);
    int n = waiting;
    pthread_mutex_unlock(&m);
    if (n == kWaiters)
      break;
    usleep(1000);
  }
  // The workers, the monitor, the timer and TSan's own thread; 1,000 if
  // the waits blocked their workers.
  int threads = cs_thread_count();
  printf("waiting %d, threads at most 8: %s\n", kWaiters,
         threads <= 8 + CS_LOAD_SPARES ? "yes" : "no");
  pthread_mutex_lock(&m);
  go = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&m);
  copystack_waitgroup_wait(&wg);
  printf("counter %ld\n", counter);

  long sums[kReaders];
  memset(sums, 0, sizeof sums);
  copystack_waitgroup_add(&wg, kWriters + kReaders);
  for (long i = 0; i < kWriters; ++i) {
    copystack_go(writer, (void *)i);
    for (int j = 0; j < kReaders / kWriters; ++j)
      copystack_go(reader, &sums[i * (kReaders / kWriters) + j]);
  }
  copystack_waitgroup_wait(&wg);
  long total = 0;
  for (int i = 0; i < kWriters; ++i)
    total += table[i];
  printf("table %ld\n", total);

  long seen = 0;
  sem_init(&ready, 0, 0);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(consumer, &seen);
  usleep(1000);
  payload = 42;
  sem_post(&ready);
  copystack_waitgroup_wait(&wg);
  printf("payload %ld\n", seen);

  pthread_barrier_init(&barrier, 0, kParties);
  copystack_waitgroup_add(&wg, kParties);
  for (long i = 0; i < kParties; ++i)
    copystack_go(party, (void *)i);
  copystack_waitgroup_wait(&wg);
  pthread_barrier_destroy(&barrier);
  printf("barrier passed\n");

  copystack_waitgroup_add(&wg, 50);
  for (int i = 0; i < 50; ++i)
    copystack_go(configured, 0);
  copystack_waitgroup_wait(&wg);
  printf("config %ld\n", config);
}

// ---- race
static int first_done; // only through relaxed __atomic builtins: orders nothing

static void locked_bump(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  counter++;
  pthread_mutex_unlock(&m);
  __atomic_store_n(&first_done, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

static void unlocked_bump(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&first_done, __ATOMIC_RELAXED))
    copystack_yield();
  counter++;
  copystack_waitgroup_done(&wg);
}

static void race(void) {
  copystack_waitgroup_add(&wg, 2);
  copystack_go(locked_bump, 0);
  copystack_go(unlocked_bump, 0);
  copystack_waitgroup_wait(&wg);
  printf("counter %ld\n", counter);
}

// ---- inversion
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;

static void lock_both(void *arg) {
  pthread_mutex_t *first = arg, *second = first == &a ? &b : &a;
  pthread_mutex_lock(first);
  pthread_mutex_lock(second);
  pthread_mutex_unlock(second);
  pthread_mutex_unlock(first);
  copystack_waitgroup_done(&wg);
}

static copystack_waitgroup both_hold = COPYSTACK_WAITGROUP_INIT;

static void lock_both_at_once(void *arg) {
  pthread_mutex_t *first = arg, *second = first == &a ? &b : &a;
  pthread_mutex_lock(first);
  copystack_waitgroup_done(&both_hold);
  copystack_waitgroup_wait(&both_hold); // the other holds its first too
  pthread_mutex_lock(second);           // never returns
  printf("not reached\n");
}

static void deadlock(void) {
  copystack_waitgroup_add(&wg, 1);
  copystack_go(lock_both, &a); // a, then b: the order TSan learns
  copystack_waitgroup_wait(&wg);
  copystack_waitgroup_add(&both_hold, 2);
  copystack_waitgroup_add(&wg, 2);
  copystack_go(lock_both_at_once, &a);
  copystack_go(lock_both_at_once, &b);
  copystack_waitgroup_wait(&wg);
}

static void inversion(void) {
  copystack_waitgroup_add(&wg, 1);
  copystack_go(lock_both, &a);
  copystack_waitgroup_wait(&wg);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(lock_both, &b);
  copystack_waitgroup_wait(&wg);
  printf("both orders taken\n");
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  if (!strcmp(argv[1], "ok"))
    ok();
  else if (!strcmp(argv[1], "race"))
    race();
  else if (!strcmp(argv[1], "deadlock"))
    deadlock();
  else
    inversion();
  return 0;
}
// OK: waiting 1000, threads at most 8: yes
// OK-NEXT: counter 1000
// OK-NEXT: table 45
// OK-NEXT: payload 42
// OK-NEXT: barrier passed
// OK-NEXT: config 7

// RACE: WARNING: ThreadSanitizer: data race
// RACE: by thread T{{[0-9]+}}:
// RACE: #0 unlocked_bump {{.*}}san_tsan_pthread_locks.c
// RACE: Previous write of size 8 at {{.*}} by thread T{{[0-9]+}} (mutexes: write M{{[0-9]+}}):
// RACE: #0 locked_bump {{.*}}san_tsan_pthread_locks.c
// RACE: Mutex M{{[0-9]+}} ({{.*}}) created at:
// RACE: #2 locked_bump {{.*}}san_tsan_pthread_locks.c

// INVERSION: WARNING: ThreadSanitizer: lock-order-inversion (potential deadlock)
// INVERSION: Cycle in lock order graph: M{{[0-9]+}} ({{.*}}) => M{{[0-9]+}} ({{.*}}) => M{{[0-9]+}}
// INVERSION: Mutex M{{[0-9]+}} acquired here while holding mutex M{{[0-9]+}} in thread T{{[0-9]+}}:
// INVERSION: #2 lock_both {{.*}}san_tsan_pthread_locks.c
// INVERSION: Mutex M{{[0-9]+}} acquired here while holding mutex M{{[0-9]+}} in thread T{{[0-9]+}}:
// INVERSION: #2 lock_both {{.*}}san_tsan_pthread_locks.c

// DEADLOCK: WARNING: ThreadSanitizer: lock-order-inversion (potential deadlock)
// DEADLOCK: Mutex M{{[0-9]+}} acquired here while holding mutex M{{[0-9]+}} in thread T{{[0-9]+}}:
// DEADLOCK: #2 lock_both {{.*}}san_tsan_pthread_locks.c
// DEADLOCK: Mutex M{{[0-9]+}} acquired here while holding mutex M{{[0-9]+}} in thread T{{[0-9]+}}:
// DEADLOCK: #1 copystack_rt::san::mutex_waiting_slow
// DEADLOCK: #2 lock_both_at_once {{.*}}san_tsan_pthread_locks.c
// REQUIRES: san-thread
