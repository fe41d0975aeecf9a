// 300 client tasks and 300 server tasks echo over TCP on loopback, each
// connection with its own bytes: every byte comes back to its own client,
// on one worker or two, and the tasks waiting on sockets add no threads
// (a few at most: the monitor gives a spare to a worker whose system call,
// socket() say, took over a millisecond; with the worker hand-off every
// waiting task held a thread).
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
#include "Inputs/net.h"
#include "Inputs/thread_count.h"

enum { kConns = 300, kRounds = 5, kMsg = 100 };

static int port;
static int bad;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void serve(void *arg) {
  int fd = (int)(long)arg;
  char buf[kMsg];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    REQUIRE(write(fd, buf, (size_t)n) == n);
  close(fd);
}

static void acceptor(void *arg) {
  int lfd = (int)(long)arg;
  for (int i = 0; i < kConns; i++) {
    int fd = accept(lfd, NULL, NULL);
    REQUIRE(fd >= 0);
    copystack_go(serve, (void *)(long)fd);
  }
  close(lfd);
}

static void client(void *arg) {
  long id = (long)arg;
  int fd = cs_connect(port);
  REQUIRE(fd >= 0);
  char out[kMsg], in[kMsg];
  for (int r = 0; r < kRounds; r++) {
    for (int i = 0; i < kMsg; i++)
      out[i] = (char)(id * 7 + r * 13 + i);
    REQUIRE(write(fd, out, sizeof out) == sizeof out);
    REQUIRE(cs_read_full(fd, in, sizeof in) == 0);
    if (memcmp(in, out, sizeof out))
      bad++;
  }
  close(fd);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  int lfd = cs_listen(&port);
  int before = cs_threads();
  copystack_go(acceptor, (void *)(long)lfd);
  copystack_waitgroup_add(&wg, kConns);
  for (long i = 0; i < kConns; i++)
    copystack_go(client, (void *)i);
  copystack_waitgroup_wait(&wg);
  printf("%d connections x %d rounds, wrong echoes: %d\n", kConns, kRounds,
         bad);
  int added = cs_threads() - before;
  printf("threads added: %s\n", added <= 4 + CS_LOAD_SPARES ? "few" : "MANY");
  if (added > 4)
    fprintf(stderr, "%d threads added\n", added);
  return 0;
}
// CHECK: 300 connections x 5 rounds, wrong echoes: 0
// CHECK: threads added: few
