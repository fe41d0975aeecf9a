// Several threads, each running tasks on its own: growth, relocation,
// foreign calls and the runtime's caches used concurrently.
// RUN: %plain_cc -pthread %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc -pthread %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include <pthread.h>
#include <string.h>

struct job {
  int id;
  long result;
};

__attribute__((noinline)) static long walk(int depth, int *anchor) {
  char frame[96];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth == 0) {
    char buf[32];
    snprintf(buf, sizeof buf, "%d", *anchor);
    return (long)strlen(buf);
  }
  return walk(depth - 1, anchor) + frame[0] - (char)depth;
}

static void task_body(void *arg) {
  struct job *j = arg;
  int anchor = 1000 + j->id;
  long r = 0;
  for (int i = 0; i < 10; i++)
    r += walk(300 + 40 * i, &anchor);
  j->result = r + anchor;
}

static void *thread_main(void *arg) {
  struct job *j = arg;
  for (int k = 0; k < 5; k++)
    copystack_run(task_body, j); // each run: a fresh 2 KiB stack
  return 0;
}

int main(void) {
  enum { N = 4 };
  pthread_t t[N];
  struct job jobs[N];
  for (int i = 0; i < N; i++) {
    jobs[i].id = i;
    pthread_create(&t[i], 0, thread_main, &jobs[i]);
  }
  for (int i = 0; i < N; i++)
    pthread_join(t[i], 0);
  for (int i = 0; i < N; i++)
    printf("thread %d: %ld\n", i, jobs[i].result);
  return 0;
}
// CHECK: thread 0: 1040
// CHECK: thread 3: 1043
