// Closing a descriptor wakes the tasks waiting on it with EBADF (Go's
// Close ends pending reads with net.ErrClosed): a read and an accept.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"

static int sv[2], lfd, started;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void reader(void *arg) {
  (void)arg;
  char c;
  __atomic_add_fetch(&started, 1, __ATOMIC_RELAXED);
  errno = 0;
  ssize_t r = read(sv[0], &c, 1);
  printf("read: %zd %s\n", r, errno == EBADF ? "EBADF" : "?");
  copystack_waitgroup_done(&wg);
}

static void acceptor(void *arg) {
  (void)arg;
  __atomic_add_fetch(&started, 1, __ATOMIC_RELAXED);
  errno = 0;
  int r = accept(lfd, NULL, NULL);
  printf("accept: %d %s\n", r, errno == EBADF ? "EBADF" : "?");
  copystack_waitgroup_done(&wg);
}

int main(void) {
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  int port;
  lfd = cs_listen(&port);
  copystack_waitgroup_add(&wg, 2);
  copystack_go(reader, 0);
  copystack_go(acceptor, 0);
  // Both at their calls, then 20 ms for them to wait there: closed
  // before a task reached its call, the descriptor could be a new one
  // (under qemu in stress + verify mode, a start took longer than 20 ms,
  // and read met an eventfd of the runtime's: EINVAL).
  while (__atomic_load_n(&started, __ATOMIC_RELAXED) < 2)
    copystack_sleep_ns(1000000);
  copystack_sleep_ns(20000000); // both wait now
  close(sv[0]);
  copystack_sleep_ns(20000000);
  close(lfd);
  copystack_waitgroup_wait(&wg);
  return 0;
}
// CHECK: read: -1 EBADF
// CHECK: accept: -1 EBADF
