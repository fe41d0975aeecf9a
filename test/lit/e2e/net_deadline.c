// Go's SetDeadline: copystack_fd_set_deadline makes a pending read fail
// with ETIMEDOUT at the deadline (not before); a deadline set in the past
// from another task cancels a pending read at once; copystack_fd_wait
// returns the ready events, or 0 at its own deadline.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"
#include <poll.h>

static int sv[2];

static void canceller(void *arg) {
  (void)arg;
  copystack_sleep_ns(20000000);
  REQUIRE(copystack_fd_set_deadline(sv[0], COPYSTACK_FD_READ, 1) == 0);
}

static void sender(void *arg) {
  (void)arg;
  copystack_sleep_ns(10000000);
  REQUIRE(write(sv[1], "d", 1) == 1);
}

int main(void) {
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  char c;
  uint64_t start = copystack_now_ns();
  REQUIRE(copystack_fd_set_deadline(sv[0], COPYSTACK_FD_READ,
                                    start + 40000000) == 0);
  errno = 0;
  ssize_t r = read(sv[0], &c, 1);
  printf("deadline: %zd %s, at the deadline: %s\n", r,
         errno == ETIMEDOUT ? "ETIMEDOUT" : "?",
         cs_ms_since(start) >= 40 ? "yes" : "NO");
  REQUIRE(copystack_fd_set_deadline(sv[0], COPYSTACK_FD_READ, 0) == 0);
  copystack_go(canceller, 0);
  errno = 0;
  r = read(sv[0], &c, 1);
  printf("cancelled: %zd %s\n", r, errno == ETIMEDOUT ? "ETIMEDOUT" : "?");
  REQUIRE(copystack_fd_set_deadline(sv[0], COPYSTACK_FD_READ, 0) == 0);
  copystack_go(sender, 0);
  int ev = copystack_fd_wait(sv[0], POLLIN, 0);
  printf("fd_wait: %s\n", ev == POLLIN ? "POLLIN" : "?");
  REQUIRE(read(sv[0], &c, 1) == 1);
  start = copystack_now_ns();
  ev = copystack_fd_wait(sv[0], POLLIN, start + 20000000);
  printf("fd_wait at its deadline: %d, waited: %s\n", ev,
         cs_ms_since(start) >= 20 ? "yes" : "NO");
  return 0;
}
// CHECK: deadline: -1 ETIMEDOUT, at the deadline: yes
// CHECK: cancelled: -1 ETIMEDOUT
// CHECK: fd_wait: POLLIN
// CHECK: fd_wait at its deadline: 0, waited: yes
