// C11's <threads.h> waits park tasks too (glibc's mtx_t, cnd_t and
// once_flag are its pthread objects, which it locks and waits on through
// internal calls: the runtime interposes the C11 names as well):
// 1,000 tasks wait on a cnd_t behind a mtx_t (few threads), one of them
// woken by a plain thread's cnd_signal; a recursive mtx_t is a task's;
// mtx_timedlock and cnd_timedwait give thrd_timedout; call_once's
// initializer parks while 1,000 tasks wait; thrd_join parks.
// Not under TSan: LLVM 19's does not intercept thrd_create, and a C11
// thread crashes it at its first instrumented function, with or without
// copystack.
// UNSUPPORTED: tsan
// RUN: %cc -std=c11 %s -o %t -lpthread
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
// RUN: %cc -std=c11 -static %s -o %t.static -lpthread
// RUN: env COPYSTACK_WORKERS=1 %run %t.static | FileCheck %s
#define _GNU_SOURCE
#include "Inputs/check.h"

#include "Inputs/thread_count.h"
#include <threads.h>
#include <time.h>
#include <unistd.h>

static mtx_t mu;
static cnd_t cv;
static int items, waiting;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void consumer(void *arg) {
  (void)arg;
  REQUIRE(mtx_lock(&mu) == thrd_success);
  waiting++;
  while (items == 0)
    REQUIRE(cnd_wait(&cv, &mu) == thrd_success);
  items--;
  REQUIRE(mtx_unlock(&mu) == thrd_success);
  copystack_waitgroup_done(&wg);
}

static int plain_producer(void *arg) {
  (void)arg;
  mtx_lock(&mu);
  items++;
  mtx_unlock(&mu);
  cnd_signal(&cv);
  return 7;
}

static once_flag once = ONCE_FLAG_INIT;
static int inits, saw;

static void init(void) {
  copystack_sleep_ns(20000000);
  inits++;
}

static void once_task(void *arg) {
  (void)arg;
  call_once(&once, init);
  if (__atomic_load_n(&inits, __ATOMIC_RELAXED) == 1)
    __atomic_fetch_add(&saw, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

static mtx_t rec;
static int other_try = -1;

static void other(void *arg) {
  (void)arg;
  other_try = mtx_trylock(&rec);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  REQUIRE(mtx_init(&mu, mtx_plain) == thrd_success);
  REQUIRE(cnd_init(&cv) == thrd_success);
  enum { kTasks = 1000 };
  copystack_waitgroup_add(&wg, kTasks);
  for (int i = 0; i < kTasks; i++)
    copystack_go(consumer, 0);
  for (;;) {
    mtx_lock(&mu);
    int w = waiting;
    mtx_unlock(&mu);
    if (w == kTasks)
      break;
    copystack_sleep_ns(1000000);
  }
  int threads = cs_thread_count();
  thrd_t t;
  REQUIRE(thrd_create(&t, plain_producer, 0) == thrd_success);
  int res = 0;
  REQUIRE(thrd_join(t, &res) == thrd_success);
  mtx_lock(&mu);
  items += kTasks - 1;
  mtx_unlock(&mu);
  cnd_broadcast(&cv);
  copystack_waitgroup_wait(&wg);
  printf("cnd: %d left, threads while waiting: %s, thrd_join: %d\n", items,
         threads <= 6 + CS_LOAD_SPARES ? "few" : "MANY", res);

  REQUIRE(mtx_init(&rec, mtx_plain | mtx_recursive) == thrd_success);
  REQUIRE(mtx_lock(&rec) == thrd_success);
  REQUIRE(mtx_lock(&rec) == thrd_success);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(other, 0);
  copystack_waitgroup_wait(&wg);
  REQUIRE(mtx_unlock(&rec) == thrd_success);
  REQUIRE(mtx_unlock(&rec) == thrd_success);
  printf("recursive: another task: %s\n",
         other_try == thrd_busy ? "thrd_busy" : "?");

  mtx_t timed;
  REQUIRE(mtx_init(&timed, mtx_timed) == thrd_success);
  REQUIRE(mtx_lock(&timed) == thrd_success);
  struct timespec at;
  timespec_get(&at, TIME_UTC);
  at.tv_nsec += 20000000;
  if (at.tv_nsec >= 1000000000) {
    at.tv_sec++;
    at.tv_nsec -= 1000000000;
  }
  mtx_lock(&mu);
  int w = cnd_timedwait(&cv, &mu, &at);
  mtx_unlock(&mu);
  printf("cnd_timedwait: %s\n", w == thrd_timedout ? "thrd_timedout" : "?");
  mtx_unlock(&timed);

  copystack_waitgroup_add(&wg, kTasks);
  for (int i = 0; i < kTasks; i++)
    copystack_go(once_task, 0);
  copystack_waitgroup_wait(&wg);
  printf("call_once: %d init, %d saw it\n", inits, saw);
  return 0;
}
// CHECK: cnd: 0 left, threads while waiting: few, thrd_join: 7
// CHECK: recursive: another task: thrd_busy
// CHECK: cnd_timedwait: thrd_timedout
// CHECK: call_once: 1 init, 1000 saw it
