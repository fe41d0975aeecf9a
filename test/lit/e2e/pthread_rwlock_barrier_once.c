// Read-write locks, barriers, pthread_once and pthread_join park tasks
// and keep their meaning (docs/tasks.md, "Blocking calls";
// sched/pthread_sync.cc):
// - A write lock is a task's, not its thread's: a task that holds one
//   across a park does not make another task on the same worker fail with
//   EDEADLK (glibc's lock keeps the thread id; std::shared_mutex threw
//   "Resource deadlock avoided"); the holder's own second lock does.
// - 2,000 tasks wait as readers behind a plain thread's write lock: few
//   threads, and all get in once it unlocks. Writers exclude everyone:
//   1,000 tasks, half writers, and a plain thread count under the lock
//   without a lost update.
// - Timeouts (ETIMEDOUT, never early) and the try variants (EBUSY).
// - A writer-preferring lock keeps new readers out while a writer waits.
// - 1,000 tasks meet at a barrier, twice: one of each round gets
//   PTHREAD_BARRIER_SERIAL_THREAD; destroy waits for the last to leave.
// - pthread_once: 1,000 tasks call it while the initializer parks (a
//   sleep, which the C library's pthread_once cannot allow a task: it
//   runs the initializer on the thread's stack); it runs once.
// - pthread_join from 200 tasks, each joining a thread it started, parks.
// RUN: %cc %s -o %t -lpthread
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
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
#include <time.h>
#include <unistd.h>

static const char *err(int e) {
  switch (e) {
  case 0: return "0";
  case EBUSY: return "EBUSY";
  case EDEADLK: return "EDEADLK";
  case ETIMEDOUT: return "ETIMEDOUT";
  default: return "other";
  }
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

// ---- the owner is the task ----------------------------------------------

static pthread_rwlock_t owned = PTHREAD_RWLOCK_INITIALIZER;
static int second_result = -1, own_again = -1, own_read = -1;

static void holder(void *arg) {
  (void)arg;
  REQUIRE(pthread_rwlock_wrlock(&owned) == 0);
  own_again = pthread_rwlock_wrlock(&owned);
  own_read = pthread_rwlock_rdlock(&owned);
  copystack_sleep_ns(20000000); // the other task runs on this worker
  REQUIRE(pthread_rwlock_unlock(&owned) == 0);
  copystack_waitgroup_done(&wg);
}

static void second(void *arg) {
  (void)arg;
  copystack_sleep_ns(5000000); // the holder has it
  second_result = pthread_rwlock_wrlock(&owned);
  if (second_result == 0)
    pthread_rwlock_unlock(&owned);
  copystack_waitgroup_done(&wg);
}

// ---- readers behind a thread's writer ------------------------------------

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int readers_in, readers_waiting;

static void reader(void *arg) {
  (void)arg;
  __atomic_fetch_add(&readers_waiting, 1, __ATOMIC_RELAXED);
  REQUIRE(pthread_rwlock_rdlock(&rw) == 0);
  __atomic_fetch_add(&readers_in, 1, __ATOMIC_RELAXED);
  copystack_sleep_ns(1000);
  REQUIRE(pthread_rwlock_unlock(&rw) == 0);
  copystack_waitgroup_done(&wg);
}

static long counter;
static int in_writer;

static void count_under(pthread_rwlock_t *l, int write) {
  if (write) {
    REQUIRE(pthread_rwlock_wrlock(l) == 0);
    REQUIRE(__atomic_fetch_add(&in_writer, 1, __ATOMIC_RELAXED) == 0);
    long c = counter;
    usleep(1); // parks inside, in a task
    counter = c + 1;
    __atomic_fetch_sub(&in_writer, 1, __ATOMIC_RELAXED);
  } else {
    REQUIRE(pthread_rwlock_rdlock(l) == 0);
    REQUIRE(__atomic_load_n(&in_writer, __ATOMIC_RELAXED) == 0);
  }
  REQUIRE(pthread_rwlock_unlock(l) == 0);
}

static void mixed(void *arg) {
  count_under(&rw, (int)(long)arg);
  copystack_waitgroup_done(&wg);
}

static void *thread_writer(void *arg) {
  (void)arg;
  for (int i = 0; i < 100; i++)
    count_under(&rw, 1);
  return NULL;
}

static pthread_rwlock_t pw;
static int pw_writer_result = -1;

static void pw_writer(void *arg) {
  (void)arg;
  pw_writer_result = pthread_rwlock_wrlock(&pw);
  if (pw_writer_result == 0)
    pthread_rwlock_unlock(&pw);
  copystack_waitgroup_done(&wg);
}

// Another task's read lock while main holds the write lock (main's own
// would be EDEADLK).
static void timed_reader(void *arg) {
  (void)arg;
  struct timespec at = in_ms(CLOCK_MONOTONIC, 20);
  int r = pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &at);
  printf("clockrdlock: %s, %s; tryrdlock: %s\n", err(r),
         reached(CLOCK_MONOTONIC, at) ? "on time" : "EARLY",
         err(pthread_rwlock_tryrdlock(&rw)));
  copystack_waitgroup_done(&wg);
}

// ---- barriers ------------------------------------------------------------

static pthread_barrier_t barrier;
static int serials;

static void meet(void *arg) {
  (void)arg;
  for (int round = 0; round < 2; round++) {
    int r = pthread_barrier_wait(&barrier);
    REQUIRE(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD);
    if (r == PTHREAD_BARRIER_SERIAL_THREAD)
      __atomic_fetch_add(&serials, 1, __ATOMIC_RELAXED);
  }
  copystack_waitgroup_done(&wg);
}

// ---- once ------------------------------------------------------------------

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int inits, saw_init;

static void init(void) {
  copystack_sleep_ns(20000000); // parks while the others wait
  __atomic_fetch_add(&inits, 1, __ATOMIC_RELAXED);
}

static void call_once_task(void *arg) {
  (void)arg;
  REQUIRE(pthread_once(&once, init) == 0);
  if (__atomic_load_n(&inits, __ATOMIC_RELAXED) == 1)
    __atomic_fetch_add(&saw_init, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

// ---- join ------------------------------------------------------------------

static void *short_thread(void *arg) {
  usleep(30000);
  return arg;
}

static int joined;

static void joiner(void *arg) {
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, short_thread, arg) == 0);
  void *r = NULL;
  REQUIRE(pthread_join(t, &r) == 0);
  if (r == arg)
    __atomic_fetch_add(&joined, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

static int max_threads;

static void watch_threads(void *arg) {
  int *stop = arg;
  while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
    int n = cs_thread_count();
    if (n > __atomic_load_n(&max_threads, __ATOMIC_RELAXED))
      __atomic_store_n(&max_threads, n, __ATOMIC_RELAXED);
    copystack_sleep_ns(2000000);
  }
}

int main(void) {
  // The owner is the task.
  copystack_waitgroup_add(&wg, 2);
  copystack_go(holder, 0);
  copystack_go(second, 0);
  copystack_waitgroup_wait(&wg);
  printf("write lock of a task: %s; the holder again: %s %s\n",
         err(second_result), err(own_again), err(own_read));

  // 2,000 readers behind a plain thread's writer (the main task counts as
  // one here: its lock is a thread's when COPYSTACK_THREADS=0).
  enum { kReaders = 2000 };
  REQUIRE(pthread_rwlock_wrlock(&rw) == 0);
  copystack_waitgroup_add(&wg, kReaders);
  for (int i = 0; i < kReaders; i++)
    copystack_go(reader, 0);
  while (__atomic_load_n(&readers_waiting, __ATOMIC_RELAXED) < kReaders)
    copystack_sleep_ns(1000000);
  copystack_sleep_ns(5000000);
  int threads = cs_thread_count();
  int early = __atomic_load_n(&readers_in, __ATOMIC_RELAXED);
  REQUIRE(pthread_rwlock_unlock(&rw) == 0);
  copystack_waitgroup_wait(&wg);
  printf("readers: %d in before the unlock, %d after; threads while waiting: "
         "%s\n",
         early, readers_in, threads <= 6 + CS_LOAD_SPARES ? "few" : "MANY");

  // Writers exclude everyone, tasks and a plain thread alike.
  enum { kMixed = 1000 };
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, thread_writer, NULL) == 0);
  copystack_waitgroup_add(&wg, kMixed);
  for (long i = 0; i < kMixed; i++)
    copystack_go(mixed, (void *)(i % 2));
  copystack_waitgroup_wait(&wg);
  REQUIRE(pthread_join(t, NULL) == 0);
  printf("writers: %ld\n", counter);

  // Timeouts and tries.
  REQUIRE(pthread_rwlock_rdlock(&rw) == 0);
  struct timespec at = in_ms(CLOCK_REALTIME, 20);
  int r = pthread_rwlock_timedwrlock(&rw, &at);
  printf("timedwrlock: %s, %s; trywrlock: %s\n", err(r),
         reached(CLOCK_REALTIME, at) ? "on time" : "EARLY",
         err(pthread_rwlock_trywrlock(&rw)));
  REQUIRE(pthread_rwlock_unlock(&rw) == 0);
  REQUIRE(pthread_rwlock_wrlock(&rw) == 0);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(timed_reader, 0);
  copystack_waitgroup_wait(&wg);
  REQUIRE(pthread_rwlock_unlock(&rw) == 0);

  // A writer-preferring lock: a new reader waits behind a waiting writer.
  pthread_rwlockattr_t a;
  pthread_rwlockattr_init(&a);
  pthread_rwlockattr_setkind_np(&a,
                                PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  REQUIRE(pthread_rwlock_init(&pw, &a) == 0);
  REQUIRE(pthread_rwlock_rdlock(&pw) == 0);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(pw_writer, 0);
  copystack_sleep_ns(5000000); // the writer waits
  int reader_try = pthread_rwlock_tryrdlock(&pw);
  REQUIRE(pthread_rwlock_unlock(&pw) == 0);
  copystack_waitgroup_wait(&wg);
  printf("writer-preferring: new reader %s, writer %s\n", err(reader_try),
         err(pw_writer_result));
  REQUIRE(pthread_rwlock_destroy(&pw) == 0);

  // Barriers.
  enum { kMeet = 1000 };
  REQUIRE(pthread_barrier_init(&barrier, NULL, kMeet) == 0);
  copystack_waitgroup_add(&wg, kMeet);
  for (int i = 0; i < kMeet; i++)
    copystack_go(meet, 0);
  copystack_waitgroup_wait(&wg);
  printf("barrier: %d serial, destroy %d\n", serials,
         pthread_barrier_destroy(&barrier));

  // Once, with an initializer that parks.
  int stop = 0;
  copystack_go(watch_threads, &stop);
  enum { kOnce = 1000 };
  copystack_waitgroup_add(&wg, kOnce);
  for (int i = 0; i < kOnce; i++)
    copystack_go(call_once_task, 0);
  copystack_waitgroup_wait(&wg);
  printf("once: %d init, %d saw it, threads: %s\n", inits, saw_init,
         __atomic_load_n(&max_threads, __ATOMIC_RELAXED) <= 7 + CS_LOAD_SPARES
             ? "few"
             : "MANY");

  // Join.
  enum { kJoin = 200 };
  copystack_waitgroup_add(&wg, kJoin);
  for (long i = 0; i < kJoin; i++)
    copystack_go(joiner, (void *)(i + 1));
  copystack_waitgroup_wait(&wg);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  printf("join: %d\n", joined);
  printf("done\n");
  return 0;
}
// CHECK: write lock of a task: 0; the holder again: EDEADLK EDEADLK
// CHECK: readers: 0 in before the unlock, 2000 after; threads while waiting: few
// CHECK: writers: 600
// CHECK: timedwrlock: ETIMEDOUT, on time; trywrlock: EBUSY
// CHECK: clockrdlock: ETIMEDOUT, on time; tryrdlock: EBUSY
// CHECK: writer-preferring: new reader EBUSY, writer 0
// CHECK: barrier: 2 serial, destroy 0
// CHECK: once: 1 init, 1000 saw it, threads: few
// CHECK: join: 200
// CHECK: done
