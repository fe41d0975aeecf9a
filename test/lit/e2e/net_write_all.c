// A blocking write writes everything: write() and writev() of 1 MiB to a
// socket whose reader drains it slowly park as the buffer fills and return
// the whole count, and the reader gets every byte in order.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"
#include <sys/uio.h>

enum { kBytes = 1 << 20 };

static int sv[2];
static unsigned char *data;
static long bad = -1;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void reader(void *arg) {
  (void)arg;
  static unsigned char buf[4096];
  long at = 0, wrong = 0;
  while (at < 2L * kBytes) {
    ssize_t n = read(sv[1], buf, sizeof buf);
    REQUIRE(n > 0);
    for (ssize_t i = 0; i < n; i++)
      wrong += buf[i] != data[(at + i) % kBytes];
    at += n;
    copystack_yield();
  }
  bad = wrong;
  copystack_waitgroup_done(&wg);
}

int main(void) {
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  data = malloc(kBytes);
  for (int i = 0; i < kBytes; i++)
    data[i] = (unsigned char)(i * 31 + i / 4096);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(reader, 0);
  printf("write: %zd\n", write(sv[0], data, kBytes));
  struct iovec iov[3] = {{data, 1000},
                         {data + 1000, kBytes / 2 - 1000},
                         {data + kBytes / 2, kBytes / 2}};
  printf("writev: %zd\n", writev(sv[0], iov, 3));
  copystack_waitgroup_wait(&wg);
  printf("bytes out of order: %ld\n", bad);
  return 0;
}
// CHECK: write: 1048576
// CHECK: writev: 1048576
// CHECK: bytes out of order: 0
