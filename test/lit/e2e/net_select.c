// select in a task: its timeout holds and is updated to the time left (0
// when it expires, as Linux does), the sets it returns name the ready
// descriptors only, and a descriptor another task writes to ends the wait.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"
#include <sys/select.h>

static int a[2], b[2];

static void sender(void *arg) {
  (void)arg;
  copystack_sleep_ns(10000000);
  REQUIRE(write(b[1], "s", 1) == 1);
}

int main(void) {
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0);
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, b) == 0);
  int nfds = (a[0] > b[0] ? a[0] : b[0]) + 1;
  fd_set r;
  FD_ZERO(&r);
  FD_SET(a[0], &r);
  FD_SET(b[0], &r);
  struct timeval tv = {0, 30000};
  uint64_t start = copystack_now_ns();
  int n = select(nfds, &r, NULL, NULL, &tv);
  printf("nothing: %d, after the timeout: %s, time left %ld.%06ld\n", n,
         cs_ms_since(start) >= 30 ? "yes" : "NO", (long)tv.tv_sec,
         (long)tv.tv_usec);
  FD_ZERO(&r);
  FD_SET(a[0], &r);
  FD_SET(b[0], &r);
  tv.tv_sec = 10;
  tv.tv_usec = 0;
  copystack_go(sender, 0);
  n = select(nfds, &r, NULL, NULL, &tv);
  printf("data: %d, a set: %d, b set: %d, time left: %s\n", n,
         FD_ISSET(a[0], &r), FD_ISSET(b[0], &r),
         tv.tv_sec < 10 && tv.tv_sec >= 9 ? "less" : "?");
  return 0;
}
// CHECK: nothing: 0, after the timeout: yes, time left 0.000000
// CHECK: data: 1, a set: 0, b set: 1, time left: less
