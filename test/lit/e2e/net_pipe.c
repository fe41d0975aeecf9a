// Pipes park too: a reader waits on an empty pipe until a writer task
// writes, and a writer of 1 MiB into a pipe waits while the reader drains
// it; every byte arrives in order.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"

enum { kBytes = 1 << 20 };

static int p[2];
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void writer(void *arg) {
  (void)arg;
  static unsigned char data[kBytes];
  for (int i = 0; i < kBytes; i++)
    data[i] = (unsigned char)(i * 7 + i / 1000);
  copystack_sleep_ns(20000000); // the reader waits on the empty pipe
  printf("write: %zd\n", write(p[1], data, kBytes));
  close(p[1]);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  REQUIRE(pipe(p) == 0);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(writer, 0);
  static unsigned char buf[8192];
  long at = 0, wrong = 0;
  ssize_t n;
  while ((n = read(p[0], buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; i++, at++)
      wrong += buf[i] != (unsigned char)(at * 7 + at / 1000);
  }
  copystack_waitgroup_wait(&wg);
  printf("read: %ld bytes, out of order: %ld\n", at, wrong);
  return 0;
}
// CHECK: write: 1048576
// CHECK: read: 1048576 bytes, out of order: 0
