// Sleep and timer channels: tasks wake in deadline order, never early; a
// sleeping task does not hold a worker (many sleep at once on one worker);
// copystack_after delivers the time it fired.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"

static copystack_chan *order;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static int early;

static void sleeper(void *arg) {
  long ms = (long)arg;
  uint64_t start = copystack_now_ns();
  cs_burn(100);
  copystack_sleep_ns((uint64_t)ms * 1000000);
  if (copystack_now_ns() < start + (uint64_t)ms * 1000000)
    early = 1;
  cs_burn(200);
  copystack_chan_send(order, &ms);
}

static void nap(void *arg) {
  (void)arg;
  copystack_sleep_ns(20000000);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  order = copystack_chan_make(sizeof(long), 3);
  copystack_go(sleeper, (void *)150L);
  copystack_go(sleeper, (void *)50L);
  copystack_go(sleeper, (void *)100L);
  long a, b, c;
  copystack_chan_recv(order, &a);
  copystack_chan_recv(order, &b);
  copystack_chan_recv(order, &c);
  printf("order: %ld %ld %ld, early: %d\n", a, b, c, early);

  // 1000 tasks sleep 20 ms each at the same time: well under 1000 x 20 ms
  // (the bound is half of that: TSan on a loaded 2-CPU machine took over
  // 2 s for the spawns and wake-ups alone).
  uint64_t start = copystack_now_ns();
  copystack_waitgroup_add(&wg, 1000);
  for (int i = 0; i < 1000; i++)
    copystack_go(nap, 0);
  copystack_waitgroup_wait(&wg);
  uint64_t took = copystack_now_ns() - start;
  printf("1000 concurrent sleeps: %s\n",
         took >= 20000000 && took < 10000000000ull ? "overlapped" : "NOT");

  uint64_t before = copystack_now_ns(), fired = 0;
  copystack_chan *t = copystack_after(10000000);
  REQUIRE(copystack_chan_recv(t, &fired));
  printf("after: %s\n", fired >= before + 10000000 ? "on time" : "EARLY");
  copystack_chan_release(t);
  copystack_sleep_ns(0); // a zero sleep returns
  printf("done\n");
  return 0;
}
// CHECK: order: 50 100 150, early: 0
// CHECK: 1000 concurrent sleeps: overlapped
// CHECK: after: on time
// CHECK: done
