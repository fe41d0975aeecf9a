// A descriptor the program made non-blocking keeps returning EAGAIN (read,
// accept), as does MSG_DONTWAIT on a blocking one; once O_NONBLOCK is
// cleared again, read waits (parks) for data as a blocking read does.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/net.h"

static int sv[2];

static void writer(void *arg) {
  (void)arg;
  copystack_sleep_ns(20000000);
  REQUIRE(write(sv[1], "y", 1) == 1);
}

int main(void) {
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  char c;
  int fl = fcntl(sv[0], F_GETFL);
  REQUIRE(fcntl(sv[0], F_SETFL, fl | O_NONBLOCK) == 0);
  errno = 0;
  ssize_t r = read(sv[0], &c, 1);
  printf("non-blocking read: %zd %s\n", r, errno == EAGAIN ? "EAGAIN" : "?");
  int port, lfd = cs_listen(&port);
  REQUIRE(fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK) == 0);
  errno = 0;
  int a = accept(lfd, NULL, NULL);
  printf("non-blocking accept: %d %s\n", a, errno == EAGAIN ? "EAGAIN" : "?");
  REQUIRE(fcntl(sv[0], F_SETFL, fl) == 0);
  errno = 0;
  r = recv(sv[0], &c, 1, MSG_DONTWAIT);
  printf("MSG_DONTWAIT: %zd %s\n", r, errno == EAGAIN ? "EAGAIN" : "?");
  copystack_go(writer, 0);
  r = read(sv[0], &c, 1);
  printf("blocking again: %zd '%c'\n", r, c);
  return 0;
}
// CHECK: non-blocking read: -1 EAGAIN
// CHECK: non-blocking accept: -1 EAGAIN
// CHECK: MSG_DONTWAIT: -1 EAGAIN
// CHECK: blocking again: 1 'y'
