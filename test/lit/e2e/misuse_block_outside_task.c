// A blocking call, yield or sleep on a thread that is not running a task
// (main kept on its own stack) stops the program with one message that
// says so, naming the call.
// RUN: %cc --copystack-no-main %s -o %t
// RUN: %exits 2 %run %t yield 2>&1 | FileCheck %s --check-prefix=YIELD
// RUN: %exits 2 %run %t sleep 2>&1 | FileCheck %s --check-prefix=SLEEP
// RUN: %exits 2 %run %t recv 2>&1 | FileCheck %s --check-prefix=RECV
// RUN: %exits 2 %run %t lock 2>&1 | FileCheck %s --check-prefix=LOCK
#include "Inputs/check.h"
#include <string.h>

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  if (!strcmp(argv[1], "yield")) {
    copystack_yield();
  } else if (!strcmp(argv[1], "sleep")) {
    copystack_sleep_ns(1000);
  } else if (!strcmp(argv[1], "recv")) {
    copystack_chan *ch = copystack_chan_make(sizeof(int), 0);
    int v;
    copystack_chan_recv(ch, &v);
  } else {
    copystack_mutex m = COPYSTACK_MUTEX_INIT;
    copystack_mutex_lock(&m);
    copystack_mutex_lock(&m);
  }
  printf("not stopped\n");
  return 0;
}
// YIELD: copystack: fatal: copystack_yield was called on a thread that is not running a task: only a task can block (wait, sleep or yield)
// SLEEP: copystack: fatal: copystack_sleep_ns was called on a thread that is not running a task
// RECV: copystack: fatal: copystack_chan_recv was called on a thread that is not running a task
// LOCK: copystack: fatal: copystack_mutex_lock was called on a thread that is not running a task
