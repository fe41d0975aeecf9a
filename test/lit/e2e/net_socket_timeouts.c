// SO_RCVTIMEO and SO_SNDTIMEO hold: a read with no data returns EAGAIN
// once the timeout has passed (never before), a write that fills the
// socket returns what it wrote; other tasks run meanwhile.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"
#include <sys/time.h>

// Shared between tasks: atomics, relaxed.
static int ticks;
static int stop;

static void ticker(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    __atomic_fetch_add(&ticks, 1, __ATOMIC_RELAXED);
    copystack_sleep_ns(1000000);
  }
}

int main(void) {
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  struct timeval tv = {0, 50000};
  REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0);
  REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0);
  copystack_go(ticker, 0);
  char c;
  uint64_t start = copystack_now_ns();
  errno = 0;
  ssize_t r = read(sv[0], &c, 1);
  uint64_t ms = cs_ms_since(start);
  printf("read: %zd %s, after the timeout: %s\n", r,
         errno == EAGAIN ? "EAGAIN" : "?", ms >= 50 ? "yes" : "NO");
  printf("other tasks ran meanwhile: %s\n", __atomic_load_n(&ticks, __ATOMIC_RELAXED) > 1 ? "yes" : "NO");
  static char big[8 << 20];
  start = copystack_now_ns();
  r = write(sv[0], big, sizeof big);
  ms = cs_ms_since(start);
  printf("write: %s of %zu, after the timeout: %s\n",
         r > 0 && r < (ssize_t)sizeof big ? "part" : "?", sizeof big,
         ms >= 50 ? "yes" : "NO");
  tv.tv_usec = 0;
  REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0);
  REQUIRE(write(sv[1], "z", 1) == 1);
  printf("timeout cleared, read: %zd\n", read(sv[0], &c, 1));
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  return 0;
}
// CHECK: read: -1 EAGAIN, after the timeout: yes
// CHECK: other tasks ran meanwhile: yes
// CHECK: write: part of 8388608, after the timeout: yes
// CHECK: timeout cleared, read: 1
