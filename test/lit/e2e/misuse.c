// Misuse of the primitives stops the program with a message that says
// what went wrong, never a hang or a crash elsewhere.
// RUN: %cc %s -o %t
// RUN: not --crash %run %t negative 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not --crash %run %t send-closed 2>&1 | FileCheck %s --check-prefix=SEND
// RUN: not --crash %run %t send-closed-waiting 2>&1 | FileCheck %s --check-prefix=SEND
// RUN: not --crash %run %t close-closed 2>&1 | FileCheck %s --check-prefix=CLOSE
// RUN: not --crash %run %t unlock 2>&1 | FileCheck %s --check-prefix=UNLOCK
// RUN: not --crash %run %t park-in-callback 2>&1 | FileCheck %s --check-prefix=PARK
// RUN: not --crash %run %t workers 2>&1 | FileCheck %s --check-prefix=WORKERS
// RUN: not --crash env COPYSTACK_WORKERS=0 %run %t go 2>&1 | FileCheck %s --check-prefix=ENV
#include "Inputs/check.h"
#include <stdlib.h>
#include <string.h>

static copystack_chan *ch;

static int compare_and_block(const void *a, const void *b) {
  // Called by qsort, which is not instrumented: this runs on the thread's
  // own stack, where a task cannot park.
  int v;
  copystack_chan_recv(ch, &v);
  return *(const int *)a - *(const int *)b;
}

static void sender(void *arg) {
  (void)arg;
  int v = 1;
  copystack_chan_send(ch, &v); // blocks: nobody receives, then closed
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  const char *what = argv[1];
  ch = copystack_chan_make(sizeof(int), 0);
  if (!strcmp(what, "negative")) {
    copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
    copystack_waitgroup_add(&wg, 1);
    copystack_waitgroup_done(&wg);
    copystack_waitgroup_done(&wg);
  } else if (!strcmp(what, "send-closed")) {
    copystack_chan_close(ch);
    int v = 1;
    copystack_chan_send(ch, &v);
  } else if (!strcmp(what, "send-closed-waiting")) {
    copystack_go(sender, 0);
    copystack_sleep_ns(5000000);
    copystack_chan_close(ch); // wakes the sender, which finds it closed
    copystack_sleep_ns(1000000000);
  } else if (!strcmp(what, "close-closed")) {
    copystack_chan_close(ch);
    copystack_chan_close(ch);
  } else if (!strcmp(what, "unlock")) {
    copystack_mutex m = COPYSTACK_MUTEX_INIT;
    copystack_mutex_lock(&m);
    copystack_mutex_unlock(&m);
    copystack_mutex_unlock(&m);
  } else if (!strcmp(what, "park-in-callback")) {
    int xs[3] = {3, 1, 2};
    qsort(xs, 3, sizeof xs[0], compare_and_block);
  } else if (!strcmp(what, "go")) {
    copystack_go(sender, 0); // starts the scheduler
  } else if (!strcmp(what, "workers")) {
    copystack_set_workers(0);
  }
  printf("not stopped\n");
  return 0;
}
// NEG: copystack: fatal: negative WaitGroup counter
// SEND: copystack: fatal: send on closed channel
// CLOSE: copystack: fatal: close of closed channel
// UNLOCK: copystack: fatal: unlock of unlocked mutex
// PARK: copystack: fatal: a task tried to park {{.*}} from code running on the thread's own stack
// WORKERS: copystack: fatal: copystack_set_workers(0): from 1 to 1024 workers
// ENV: copystack: fatal: COPYSTACK_WORKERS=0 is not a number of workers from 1 to 1024
