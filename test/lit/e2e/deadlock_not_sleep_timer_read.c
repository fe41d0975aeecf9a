// No false alarm: while main waits on a channel, a task that sleeps, a
// task waiting on a timer channel and a task blocked in read(2) are not
// asleep in Go's sense (a timer or the kernel will wake them). The
// program finishes.
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/check.h"
#include <unistd.h>

static copystack_chan *done;
static int fds[2];

static void sleeper(void *arg) {
  (void)arg;
  copystack_sleep_ns(50 * 1000 * 1000);
  char c = 'x';
  REQUIRE(write(fds[1], &c, 1) == 1); // wakes the reader
  int v = 1;
  copystack_chan_send(done, &v);
}

static void timer_waiter(void *arg) {
  (void)arg;
  copystack_chan *t = copystack_after(30 * 1000 * 1000);
  uint64_t when;
  copystack_chan_recv(t, &when);
  copystack_chan_release(t);
  int v = 2;
  copystack_chan_send(done, &v);
}

static void reader(void *arg) {
  (void)arg;
  char c;
  REQUIRE(read(fds[0], &c, 1) == 1); // blocks in the kernel
  int v = 3;
  copystack_chan_send(done, &v);
}

int main(void) {
  done = copystack_chan_make(sizeof(int), 0);
  REQUIRE(pipe(fds) == 0);
  copystack_go(reader, 0);
  copystack_go(timer_waiter, 0);
  copystack_go(sleeper, 0);
  int sum = 0;
  for (int i = 0; i < 3; ++i) {
    int v;
    copystack_chan_recv(done, &v);
    sum += v;
  }
  printf("sum %d\n", sum);
  return 0;
}
// CHECK: sum 6
