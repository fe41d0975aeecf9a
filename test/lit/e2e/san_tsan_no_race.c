// Under ThreadSanitizer, data handed from task to task through the
// runtime's primitives is not a race, as in Go: buffers passed through
// unbuffered and buffered channels and select, a counter under a task
// mutex, results read after a wait group's wait, a channel's close, and a
// task's writes seen by the one that spawned the next; with the tasks on
// two workers, their stacks growing and moving, and task structures and
// stacks reused.
// RUN: %cc -fsanitize=thread %s -o %t
// RUN: env COPYSTACK_WORKERS=2 %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
// RUN: env COPYSTACK_WORKERS=1 %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
// A task that calls exit() (from a foreign call) ends the program cleanly:
// RUN: %run %t exit 2>&1 | FileCheck %s --check-prefixes=CHECK,EXIT --implicit-check-not=ThreadSanitizer
#include "Inputs/check.h"
#include <string.h>

enum { kTasks = 8, kRounds = 50 };

struct msg {
  long *data; // heap memory that changes hands with the message
  int n;
};

static copystack_chan *unbuf, *buf, *done;
static copystack_mutex mu = COPYSTACK_MUTEX_INIT;
static long shared_total; // under mu
static long results[kTasks]; // written by each task, read after the wait
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static int config_value; // written before the spawn, read by the task

static void producer(void *arg) {
  long id = (long)arg;
  for (int r = 0; r < kRounds; r++) {
    struct msg m;
    m.n = 16;
    m.data = malloc(sizeof(long) * m.n);
    for (int i = 0; i < m.n; i++)
      m.data[i] = id * 1000 + r + i;
    cs_burn(r % 30);
    copystack_chan_send((r & 1) ? buf : unbuf, &m);
  }
  copystack_waitgroup_done(&wg);
}

static void consumer(void *arg) {
  long id = (long)arg;
  long local = config_value;
  for (int r = 0; r < kRounds; r++) {
    struct msg m;
    copystack_select_case cases[2] = {
        {unbuf, &m, COPYSTACK_RECV, 0},
        {buf, &m, COPYSTACK_RECV, 0},
    };
    copystack_select(cases, 2, 1);
    for (int i = 0; i < m.n; i++)
      local += m.data[i];
    m.data[0] = 0; // the receiver owns it now
    free(m.data);
    cs_burn(r % 25);
    copystack_mutex_lock(&mu);
    shared_total += 1;
    copystack_mutex_unlock(&mu);
  }
  results[id] = local;
  copystack_waitgroup_done(&wg);
}

static long closed_seen;
static void closer_waiter(void *arg) {
  (void)arg;
  int v;
  while (copystack_chan_recv(done, &v))
    ;
  closed_seen = 1; // written after the close, read after the wait
  copystack_waitgroup_done(&wg);
}

static void exiter(void *arg) {
  (void)arg;
  printf("exiting from a task\n");
  exit(0);
}

int main(int argc, char **argv) {
  (void)argv;
  unbuf = copystack_chan_make(sizeof(struct msg), 0);
  buf = copystack_chan_make(sizeof(struct msg), 4);
  done = copystack_chan_make(sizeof(int), 0);
  config_value = 7;
  copystack_waitgroup_add(&wg, 2 * kTasks + 1);
  copystack_go(closer_waiter, 0);
  for (long i = 0; i < kTasks; i++) {
    copystack_go(producer, (void *)i);
    copystack_go(consumer, (void *)i);
  }
  copystack_chan_close(done);
  copystack_waitgroup_wait(&wg);
  long sum = 0;
  for (int i = 0; i < kTasks; i++)
    sum += results[i];
  copystack_mutex_lock(&mu);
  printf("total %ld closed %ld\n", shared_total, closed_seen);
  copystack_mutex_unlock(&mu);
  printf("sum %ld\n", sum);
  if (argc > 1) {
    copystack_go(exiter, 0);
    int never;
    copystack_chan_recv(done, &never); // closed: returns at once
    copystack_chan *forever = copystack_chan_make(sizeof(int), 0);
    copystack_chan_recv(forever, &never);
  }
  return 0;
}
// CHECK: total 400 closed 1
// CHECK: sum
// EXIT: exiting from a task
// REQUIRES: san-thread
