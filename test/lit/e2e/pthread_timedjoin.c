// pthread_timedjoin_np and pthread_clockjoin_np park the task, as
// pthread_join does: with one worker, another task keeps running while a
// task waits to join a thread, and the monitor starts no spare worker (a
// join that blocked the worker made it start one after a millisecond or
// two). A deadline that passes first returns
// ETIMEDOUT, and the thread can still be joined after; one that does not
// returns 0 and the thread's result; a bad deadline is EINVAL, as glibc's.
// RUN: %cc -pthread %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#define _GNU_SOURCE
#include "Inputs/check.h"
#include "Inputs/deadline.h"
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static long ticks;
static int stop_ticking;
static int joining;     // main waits in the timed join
static int most_seen;   // the most threads the ticker saw meanwhile

static int threads(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int n = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1)
      break;
  if (f)
    fclose(f);
  return n;
}

static void ticker(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&stop_ticking, __ATOMIC_ACQUIRE)) {
    __atomic_fetch_add(&ticks, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&joining, __ATOMIC_ACQUIRE)) {
      int n = threads();
      if (n > __atomic_load_n(&most_seen, __ATOMIC_RELAXED))
        __atomic_store_n(&most_seen, n, __ATOMIC_RELAXED);
    }
    copystack_sleep_ns(1000 * 1000);
  }
}

static void *sleeper(void *arg) {
  usleep(200 * 1000);
  return arg;
}

int main(void) {
  copystack_go(ticker, NULL);
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, sleeper, (void *)42) == 0);

  copystack_sleep_ns(5 * 1000 * 1000); // the monitor and timer thread run
  int before_threads = threads();

  // Timed out: 30 ms of a 200 ms sleep; the ticker ran meanwhile.
  long before = __atomic_load_n(&ticks, __ATOMIC_RELAXED);
  struct timespec soon = in_ms(CLOCK_REALTIME, 30);
  void *result = NULL;
  __atomic_store_n(&joining, 1, __ATOMIC_RELEASE);
  int r = pthread_timedjoin_np(t, &result, &soon);
  __atomic_store_n(&joining, 0, __ATOMIC_RELEASE);
  long ran = __atomic_load_n(&ticks, __ATOMIC_RELAXED) - before;
  int most = __atomic_load_n(&most_seen, __ATOMIC_RELAXED);
  printf("timedjoin before the end: %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : "?");
  printf("ticker ran while it waited: %s; threads: %s\n",
         ran >= 5 ? "yes" : "no",
         most <= before_threads ? "no spare" : "A SPARE");

  // A bad deadline.
  struct timespec bad = {0, 2000000000L};
  printf("bad deadline: %s\n",
         pthread_clockjoin_np(t, &result, CLOCK_MONOTONIC, &bad) == EINVAL
             ? "EINVAL"
             : "?");

  // Joined: a deadline well after the thread's end.
  struct timespec later = in_ms(CLOCK_MONOTONIC, 5000);
  r = pthread_clockjoin_np(t, &result, CLOCK_MONOTONIC, &later);
  printf("clockjoin after the end: %d, result %ld\n", r, (long)result);

  // And pthread_timedjoin_np of a thread that ends in time.
  REQUIRE(pthread_create(&t, NULL, sleeper, (void *)7) == 0);
  later = in_ms(CLOCK_REALTIME, 5000);
  r = pthread_timedjoin_np(t, &result, &later);
  printf("timedjoin: %d, result %ld\n", r, (long)result);

  __atomic_store_n(&stop_ticking, 1, __ATOMIC_RELEASE);
  return 0;
}
// CHECK: timedjoin before the end: ETIMEDOUT
// CHECK-NEXT: ticker ran while it waited: yes; threads: no spare
// CHECK-NEXT: bad deadline: EINVAL
// CHECK-NEXT: clockjoin after the end: 0, result 42
// CHECK-NEXT: timedjoin: 0, result 7
