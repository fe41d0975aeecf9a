// Under ThreadSanitizer, a thread whose start routine runs as a task
// (every thread of a program built with the drivers) may end itself with
// pthread_exit from inside the task, its stack grown: TSan's pthread_exit
// requires the thread's own context, which the runtime's wrapper gives it
// back first. What the thread wrote before is seen by the joiner, without
// a race report.
// RUN: %cc -fsanitize=thread %s -o %t
// RUN: %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
#include "Inputs/check.h"
#include <pthread.h>

static long shared[4];

__attribute__((noinline)) static void deep_exit(int depth, long v) {
  char frame[128];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth > 0) {
    deep_exit(depth - 1, v + frame[0] - (char)depth);
    return;
  }
  pthread_exit((void *)v);
}

static void *thread_main(void *arg) {
  long i = (long)arg;
  shared[i] = 100 + i;
  deep_exit(200, 40 + i); // grows the thread's task stack, then exits
  return 0;
}

int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++)
    REQUIRE(pthread_create(&t[i], 0, thread_main, (void *)i) == 0);
  long sum = 0;
  for (long i = 0; i < 4; i++) {
    void *r;
    REQUIRE(pthread_join(t[i], &r) == 0);
    sum += (long)r + shared[i];
  }
  printf("joined: %ld\n", sum);
  return 0;
}
// CHECK: joined: 572
// REQUIRES: san-thread
