// poll's timeout holds in a task: with nothing to read it returns 0 once
// the timeout has passed (never before); data another task sends meanwhile
// ends it with POLLIN; poll on no descriptors sleeps for the timeout.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"
#include <poll.h>

static int sv[2];

static void sender(void *arg) {
  (void)arg;
  copystack_sleep_ns(10000000);
  REQUIRE(write(sv[1], "p", 1) == 1);
}

int main(void) {
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  struct pollfd p = {sv[0], POLLIN, 0};
  uint64_t start = copystack_now_ns();
  int r = poll(&p, 1, 40);
  printf("nothing: %d, after the timeout: %s\n", r,
         cs_ms_since(start) >= 40 ? "yes" : "NO");
  copystack_go(sender, 0);
  r = poll(&p, 1, 10000);
  printf("data: %d revents %s\n", r, p.revents == POLLIN ? "POLLIN" : "?");
  start = copystack_now_ns();
  r = poll(NULL, 0, 30);
  printf("no descriptors: %d, slept: %s\n", r,
         cs_ms_since(start) >= 30 ? "yes" : "NO");
  p.revents = 0;
  p.events = POLLOUT;
  printf("writable now: %d\n", poll(&p, 1, -1));
  return 0;
}
// CHECK: nothing: 0, after the timeout: yes
// CHECK: data: 1 revents POLLIN
// CHECK: no descriptors: 0, slept: yes
// CHECK: writable now: 1
