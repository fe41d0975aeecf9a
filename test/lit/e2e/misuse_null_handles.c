// A null handle anywhere in the C API stops the program with a message
// naming the call, as Go panics on a nil channel's close: never a SIGSEGV.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t close 2>&1 | FileCheck %s --check-prefix=CLOSE
// RUN: %exits 2 %run %t go 2>&1 | FileCheck %s --check-prefix=GO
// RUN: %exits 2 %run %t run 2>&1 | FileCheck %s --check-prefix=RUNFN
// RUN: %exits 2 %run %t send 2>&1 | FileCheck %s --check-prefix=SEND
// RUN: %exits 2 %run %t recv 2>&1 | FileCheck %s --check-prefix=RECV
// RUN: %exits 2 %run %t wait 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: %exits 2 %run %t add 2>&1 | FileCheck %s --check-prefix=ADD
// RUN: %exits 2 %run %t lock 2>&1 | FileCheck %s --check-prefix=LOCK
// RUN: %exits 2 %run %t unlock 2>&1 | FileCheck %s --check-prefix=UNLOCK
// RUN: %exits 2 %run %t select 2>&1 | FileCheck %s --check-prefix=SELECT
// RUN: %exits 2 %run %t stats 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %run %t lenient | FileCheck %s --check-prefix=LENIENT
#include "Inputs/check.h"
#include <string.h>

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  const char *what = argv[1];
  int v = 0;
  if (!strcmp(what, "close"))
    copystack_chan_close(NULL);
  else if (!strcmp(what, "go"))
    copystack_go(NULL, NULL);
  else if (!strcmp(what, "run"))
    copystack_run(NULL, NULL);
  else if (!strcmp(what, "send"))
    copystack_chan_send(NULL, &v);
  else if (!strcmp(what, "recv"))
    copystack_chan_recv(NULL, &v);
  else if (!strcmp(what, "wait"))
    copystack_waitgroup_wait(NULL);
  else if (!strcmp(what, "add"))
    copystack_waitgroup_add(NULL, 1);
  else if (!strcmp(what, "lock"))
    copystack_mutex_lock(NULL);
  else if (!strcmp(what, "unlock"))
    copystack_mutex_unlock(NULL);
  else if (!strcmp(what, "select"))
    copystack_select(NULL, 2, 1);
  else if (!strcmp(what, "stats"))
    copystack_get_stats(NULL);
  else if (!strcmp(what, "lenient")) {
    // As free(NULL), and Go's len and cap of a nil channel.
    copystack_chan_release(NULL);
    printf("len %zu cap %zu\n", copystack_chan_len(NULL),
           copystack_chan_cap(NULL));
    return 0;
  }
  printf("not stopped\n");
  return 0;
}
// CLOSE: copystack: fatal: copystack_chan_close: close of nil channel (the channel is null)
// GO: copystack: fatal: copystack_go: the function is null
// RUNFN: copystack: fatal: copystack_run: the function is null
// SEND: copystack: fatal: copystack_chan_send: the channel is null
// RECV: copystack: fatal: copystack_chan_recv: the channel is null
// WAIT: copystack: fatal: copystack_waitgroup_wait: the wait group is null
// ADD: copystack: fatal: copystack_waitgroup_add: the wait group is null
// LOCK: copystack: fatal: copystack_mutex_lock: the mutex is null
// UNLOCK: copystack: fatal: copystack_mutex_unlock: the mutex is null
// SELECT: copystack: fatal: copystack_select: 2 cases at (nil): the case array is null or the count negative
// STATS: copystack: fatal: copystack_get_stats: the output structure is null
// LENIENT: len 0 cap 0
