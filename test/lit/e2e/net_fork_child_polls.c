// fork() while the parent's poller sleeps in epoll_wait: a child's tasks
// still park on descriptors and wake. The child has an epoll instance of
// its own; with the parent's (inherited through the descriptor), the
// parent's sleeping worker took the child's edges and the child's reader
// never woke.
// Not under TSan, which stops a child of a multi-threaded process that
// starts threads (the child's workers) (docs/debugging.md).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/net.h"
#include <sys/wait.h>

static int parent_sv[2];
static int child_pipe[2];
static copystack_chan *got;

// In the parent, for the whole test: a worker sleeps in epoll_wait for it.
static void parent_reader(void *arg) {
  (void)arg;
  char c;
  REQUIRE(read(parent_sv[0], &c, 1) == 1 && c == 'p');
  int v = 1;
  copystack_chan_send(got, &v);
}

static void child_reader(void *arg) {
  (void)arg;
  char c = 0;
  int v = read(child_pipe[0], &c, 1) == 1 && c == 'c';
  copystack_chan_send(got, &v);
}

static int child_main(void) {
  alarm(10); // a hang ends as SIGALRM, which the parent reports
  got = copystack_chan_make(sizeof(int), 0);
  REQUIRE(pipe(child_pipe) == 0);
  copystack_go(child_reader, 0);
  copystack_sleep_ns(2 * 1000 * 1000); // the reader parks first
  REQUIRE(write(child_pipe[1], "c", 1) == 1);
  int v = 0;
  copystack_chan_recv(got, &v);
  return v ? 0 : 3;
}

int main(void) {
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, parent_sv) == 0);
  got = copystack_chan_make(sizeof(int), 0);
  copystack_go(parent_reader, 0);
  copystack_sleep_ns(5 * 1000 * 1000); // it parks, a worker polls
  int ok = 0;
  for (int i = 0; i < 20; ++i) {
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0)
      _exit(child_main());
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      ++ok;
    else
      printf("child %d: status %#x\n", i, status);
  }
  printf("children whose reader woke: %d of 20\n", ok);
  REQUIRE(write(parent_sv[1], "p", 1) == 1);
  int v = 0;
  copystack_chan_recv(got, &v);
  printf("parent's reader woke: %d\n", v);
  return 0;
}
// CHECK: children whose reader woke: 20 of 20
// CHECK: parent's reader woke: 1
