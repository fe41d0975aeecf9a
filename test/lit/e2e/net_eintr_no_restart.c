// A handler installed without SA_RESTART interrupts a task's blocking read
// with EINTR, as it would a thread's (signal(7)); the signal comes from
// another task while the reader waits.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"
#include <signal.h>

// The handler runs in whichever task the signal lands in: an atomic.
static int handled;
static void on_usr1(int sig) {
  (void)sig;
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
}

static void signaller(void *arg) {
  (void)arg;
  copystack_sleep_ns(20000000);
  kill(getpid(), SIGUSR1);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; // no SA_RESTART
  REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  copystack_go(signaller, 0);
  char c;
  errno = 0;
  ssize_t r = read(sv[0], &c, 1);
  printf("read: %zd %s, handler ran: %d\n", r,
         errno == EINTR ? "EINTR" : "?", __atomic_load_n(&handled, __ATOMIC_RELAXED));
  return 0;
}
// CHECK: read: -1 EINTR, handler ran: 1
