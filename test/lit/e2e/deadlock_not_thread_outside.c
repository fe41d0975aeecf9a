// No false alarm: a thread that is not running a task (its start routine
// stays on its own stack) can still close the channel every task waits
// on, so while it exists nothing is reported; it closes the channel and
// the program finishes.
// RUN: %cc %s -o %t -lpthread
// RUN: %run %t | FileCheck %s
#include "Inputs/check.h"
#include <pthread.h>
#include <unistd.h>

static copystack_chan *ch;

__attribute__((annotate("copystack_nosplit"))) static void *closer(void *arg) {
  (void)arg;
  usleep(100 * 1000);
  copystack_chan_close(ch);
  return NULL;
}

int main(void) {
  ch = copystack_chan_make(sizeof(int), 0);
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, closer, NULL) == 0);
  int v = 7;
  int got = copystack_chan_recv(ch, &v);
  printf("closed %d\n", !got);
  pthread_join(t, NULL);
  return 0;
}
// CHECK: closed 1
