// accept and connect park: four tasks accept on one listening socket and
// every connection is accepted exactly once (a task that accepts lets the
// next look again); connect returns 0, and ECONNREFUSED from a closed port.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
#include "Inputs/net.h"

enum { kAcceptors = 4, kClients = 40 };

static int lfd, port;
static int accepted[kAcceptors];
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static copystack_chan *done;

static void acceptor(void *arg) {
  long id = (long)arg;
  for (;;) {
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
      break; // the listener was closed
    char c;
    REQUIRE(read(fd, &c, 1) == 1);
    accepted[id]++;
    close(fd);
    copystack_chan_send(done, &id);
  }
  copystack_waitgroup_done(&wg);
}

static void client(void *arg) {
  (void)arg;
  int fd = cs_connect(port);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "c", 1) == 1);
  close(fd);
}

int main(void) {
  lfd = cs_listen(&port);
  done = copystack_chan_make(sizeof(long), kClients);
  copystack_waitgroup_add(&wg, kAcceptors);
  for (long i = 0; i < kAcceptors; i++)
    copystack_go(acceptor, (void *)i);
  for (int i = 0; i < kClients; i++)
    copystack_go(client, 0);
  for (int i = 0; i < kClients; i++) {
    long id;
    copystack_chan_recv(done, &id);
  }
  close(lfd);
  copystack_waitgroup_wait(&wg);
  int total = 0;
  for (int i = 0; i < kAcceptors; i++)
    total += accepted[i];
  printf("accepted: %d of %d\n", total, kClients);
  int other, closed = cs_listen(&other);
  close(closed);
  int fd = cs_connect(other);
  printf("connect to a closed port: %d %s\n", fd,
         errno == ECONNREFUSED ? "ECONNREFUSED" : strerror(errno));
  return 0;
}
// CHECK: accepted: 40 of 40
// CHECK: connect to a closed port: -1 ECONNREFUSED
