// Wait groups and mutexes from C: 200 tasks on all workers add to a shared
// counter under a mutex, holding it across parks; wait groups are reused;
// trylock; a waiter woken by the last done.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=3 %run %t | FileCheck %s
#include "Inputs/check.h"

static copystack_mutex mu = COPYSTACK_MUTEX_INIT;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static long counter;

static void adder(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < 50; i++) {
    cs_burn((int)((id * 7 + i) % 90));
    copystack_mutex_lock(&mu);
    long v = counter;
    if (i % 8 == 0)
      copystack_yield(); // others park on the mutex meanwhile
    counter = v + 1;
    copystack_mutex_unlock(&mu);
  }
  copystack_waitgroup_done(&wg);
}

struct round {
  copystack_waitgroup *wg;
  long *slot;
};

static void worker(void *arg) {
  struct round *r = arg;
  copystack_sleep_ns(100000);
  *r->slot = 1;
  copystack_waitgroup_done(r->wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, 200);
  for (long t = 0; t < 200; t++)
    copystack_go(adder, (void *)t);
  copystack_waitgroup_wait(&wg);
  printf("counter %ld\n", counter);

  REQUIRE(copystack_mutex_trylock(&mu));
  REQUIRE(!copystack_mutex_trylock(&mu));
  copystack_mutex_unlock(&mu);
  printf("trylock ok\n");

  // A wait group on this task's stack, reused for three rounds. Its address
  // goes to other tasks, so it lives in the pinned area.
  copystack_waitgroup local = COPYSTACK_WAITGROUP_INIT;
  long slots[10];
  struct round rounds[10];
  for (int k = 0; k < 3; k++) {
    copystack_waitgroup_add(&local, 10);
    for (int i = 0; i < 10; i++) {
      slots[i] = 0;
      rounds[i] = (struct round){&local, &slots[i]};
      copystack_go(worker, &rounds[i]);
    }
    cs_burn(300); // this task's stack moves while they run
    copystack_waitgroup_wait(&local);
    long sum = 0;
    for (int i = 0; i < 10; i++)
      sum += slots[i];
    printf("round %d: %ld\n", k, sum);
  }
  // Waiting on a zero counter returns at once.
  copystack_waitgroup_wait(&local);
  printf("done\n");
  return 0;
}
// CHECK: counter 10000
// CHECK: trylock ok
// CHECK: round 0: 10
// CHECK: round 1: 10
// CHECK: round 2: 10
// CHECK: done
