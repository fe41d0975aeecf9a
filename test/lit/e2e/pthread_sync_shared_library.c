// Code written for threads in a second image: an instrumented library,
// loaded with dlopen, keeps a 4-slot queue under a pthread mutex and two
// condition variables and a total under an rwlock (Inputs/sync_lib.c).
// 100 producer and 100 consumer tasks of the program, and one thread
// outside the tasks that produces too, go through the library's queue
// with one worker: the tasks park in the library's waits (the monitor
// starts no spare workers for them) and the plain thread blocks in them, and
// everything put is taken once. Under TSan too.
// RUN: %cc -fPIC -shared %S/Inputs/sync_lib.c -o %t.lib.so
// RUN: %cc -pthread %s -o %t -ldl
// RUN: env COPYSTACK_WORKERS=1 %run %t %t.lib.so | FileCheck %s
#include "Inputs/check.h"
#include "Inputs/thread_count.h"
#include <dlfcn.h>
#include <pthread.h>

enum { kTasks = 100, kEach = 50, kThreadPuts = 500 };

static void (*put)(int);
static int (*get)(void);
static long (*total)(void);
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static int most_threads;

static void note_threads(void) {
  int n = cs_thread_count();
  if (n > __atomic_load_n(&most_threads, __ATOMIC_RELAXED))
    __atomic_store_n(&most_threads, n, __ATOMIC_RELAXED);
}

static void producer(void *arg) {
  int base = (int)(intptr_t)arg;
  for (int i = 1; i <= kEach; ++i) {
    put(base + i);
    if (i % 10 == 0)
      note_threads();
  }
  copystack_waitgroup_done(&wg);
}

static void consumer(void *arg) {
  (void)arg;
  for (int i = 0; i < kEach; ++i)
    get();
  copystack_waitgroup_done(&wg);
}

// The thread's own stack, not a task's: it blocks in the library's waits.
__attribute__((annotate("copystack_nosplit"))) static void *
plain_producer(void *arg) {
  (void)arg;
  for (int i = 1; i <= kThreadPuts; ++i)
    put(1);
  return NULL;
}

static void extra_consumer(void *arg) {
  (void)arg;
  for (int i = 0; i < kThreadPuts; ++i)
    get();
  copystack_waitgroup_done(&wg);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib);
  put = (void (*)(int))dlsym(lib, "lib_put");
  get = (int (*)(void))dlsym(lib, "lib_get");
  total = (long (*)(void))dlsym(lib, "lib_total");
  REQUIRE(put && get && total);
  copystack_sleep_ns(5 * 1000 * 1000); // the monitor and timer thread run
  int before = cs_thread_count();
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, plain_producer, NULL) == 0);
  copystack_waitgroup_add(&wg, 2 * kTasks + 1);
  copystack_go(extra_consumer, NULL);
  for (int i = 0; i < kTasks; ++i) {
    copystack_go(producer, (void *)(intptr_t)(i * 1000));
    copystack_go(consumer, NULL);
  }
  copystack_waitgroup_wait(&wg);
  REQUIRE(pthread_join(t, NULL) == 0);
  long want = kThreadPuts;
  for (int i = 0; i < kTasks; ++i)
    for (int k = 1; k <= kEach; ++k)
      want += i * 1000 + k;
  printf("total %s\n", total() == want ? "matches" : "WRONG");
  // The plain thread is the one thread more while it runs. A loaded
  // machine adds spare workers: the monitor starts one for a worker that
  // stays in one foreign call (printf, opendir) for two of its ticks, and
  // a worker the OS keeps off its CPU there, or that waits in a page fault
  // for the memory map's lock, looks just like one blocked in the call
  // (seen on a busy CI machine: a few, up to 3 at once). Waits that
  // blocked their workers would take one each: about a hundred here.
  printf("threads: %s\n",
         most_threads <= before + 1 + CS_LOAD_SPARES ? "no spares" : "SPARES");
  return 0;
}
// CHECK: total matches
// CHECK-NEXT: threads: no spares
