// sleep, usleep, nanosleep and clock_nanosleep park the task: 100 tasks
// sleeping at once on one worker all finish, none early, adding no thread
// (a few at most: the monitor gives a spare to a worker whose system call
// took over a millisecond); invalid arguments and absolute deadlines
// behave as in libc.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"
#include "Inputs/thread_count.h"
#include <time.h>

static volatile int early;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void napper(void *arg) {
  long i = (long)arg;
  uint64_t start = copystack_now_ns();
  struct timespec ts = {0, 30000000};
  switch (i % 3) {
  case 0:
    REQUIRE(nanosleep(&ts, NULL) == 0);
    break;
  case 1:
    REQUIRE(usleep(30000) == 0);
    break;
  default:
    REQUIRE(clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL) == 0);
  }
  if (cs_ms_since(start) < 30)
    early = 1;
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_sleep_ns(1000000); // the timer thread exists from here
  int before = cs_threads();
  copystack_waitgroup_add(&wg, 100);
  for (long i = 0; i < 100; i++)
    copystack_go(napper, (void *)i);
  copystack_waitgroup_wait(&wg);
  int added = cs_threads() - before;
  printf("100 sleeps: early %d, threads added: %s\n", early,
         added <= 4 + CS_LOAD_SPARES ? "few" : "MANY");
  struct timespec bad = {0, 2000000000};
  errno = 0;
  printf("nanosleep with 2e9 ns: %d %s\n", nanosleep(&bad, NULL),
         errno == EINVAL ? "EINVAL" : "?");
  struct timespec now, at;
  clock_gettime(CLOCK_REALTIME, &now);
  at = now;
  at.tv_nsec += 20000000;
  if (at.tv_nsec >= 1000000000) {
    at.tv_sec++;
    at.tv_nsec -= 1000000000;
  }
  uint64_t start = copystack_now_ns();
  int r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL);
  printf("absolute: %d, waited: %s\n", r,
         cs_ms_since(start) >= 15 ? "yes" : "NO");
  printf("sleep(0): %u\n", sleep(0));
  return 0;
}
// CHECK: 100 sleeps: early 0, threads added: few
// CHECK: nanosleep with 2e9 ns: -1 EINVAL
// CHECK: absolute: 0, waited: yes
// CHECK: sleep(0): 0
