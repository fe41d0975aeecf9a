// A handler installed with SA_RESTART does not interrupt a task's read (it
// goes on and gets its data), but sleeps and poll return EINTR even so, as
// they do on a thread (signal(7): never restarted).
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"
#include <poll.h>
#include <signal.h>
#include <time.h>

// The handler runs in whichever task the signal lands in: an atomic.
static int handled;
static void on_usr1(int sig) {
  (void)sig;
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
}

static int sv[2];

static void signal_then_send(void *arg) {
  (void)arg;
  copystack_sleep_ns(20000000);
  kill(getpid(), SIGUSR1);
  copystack_sleep_ns(20000000);
  REQUIRE(write(sv[1], "r", 1) == 1);
}

static void signal_later(void *arg) {
  (void)arg;
  copystack_sleep_ns(20000000);
  kill(getpid(), SIGUSR1);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  REQUIRE(sigaction(SIGUSR1, &sa, NULL) == 0);
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  copystack_go(signal_then_send, 0);
  char c = 0;
  ssize_t r = read(sv[0], &c, 1);
  printf("read: %zd '%c', handler ran: %d\n", r, c, __atomic_load_n(&handled, __ATOMIC_RELAXED));

  copystack_go(signal_later, 0);
  struct timespec ts = {10, 0}, rem = {0, 0}, t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  errno = 0;
  int n = nanosleep(&ts, &rem);
  int err = errno;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  // What is left is the 10 s less at most the time that passed (the
  // signal comes after about 20 ms, later on a loaded machine).
  long long left = rem.tv_sec * 1000000000LL + rem.tv_nsec;
  long long passed = (t1.tv_sec - t0.tv_sec) * 1000000000LL +
                     (t1.tv_nsec - t0.tv_nsec);
  int right = left > 0 && left < 10000000000LL &&
              left >= 10000000000LL - passed - 1000000;
  printf("nanosleep: %d %s, time left: %s\n", n,
         err == EINTR ? "EINTR" : "?", right ? "yes" : "NO");
  if (!right)
    printf("left %lld ns after %lld ns\n", left, passed);

  copystack_go(signal_later, 0);
  struct pollfd p = {sv[0], POLLIN, 0};
  errno = 0;
  n = poll(&p, 1, 10000);
  printf("poll: %d %s, handler ran: %d\n", n, errno == EINTR ? "EINTR" : "?",
         __atomic_load_n(&handled, __ATOMIC_RELAXED));
  return 0;
}
// CHECK: read: 1 'r', handler ran: 1
// CHECK: nanosleep: -1 EINTR, time left: yes
// CHECK: poll: -1 EINTR, handler ran: 3
