// COPYSTACK_TRACEBACK (Go's GOTRACEBACK) chooses what a fatal error
// prints: none (the message), single (the failing task), all (every task:
// the default), crash (all, then abort() for a core dump).
// RUN: %cc %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: %exits 2 env COPYSTACK_TRACEBACK=all %run %t 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: %exits 2 env COPYSTACK_TRACEBACK=single %run %t 2>&1 | FileCheck %s --check-prefix=SINGLE
// RUN: %exits 2 env COPYSTACK_TRACEBACK=none %run %t 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not --crash env COPYSTACK_TRACEBACK=crash %run %t 2>&1 | FileCheck %s --check-prefix=ALL
#include "Inputs/check.h"

static copystack_chan *ch;

static void bystander(void *arg) {
  (void)arg;
  int v;
  copystack_chan_recv(ch, &v);
}

int main(void) {
  ch = copystack_chan_make(sizeof(int), 0);
  copystack_go(bystander, 0);
  copystack_sleep_ns(20 * 1000 * 1000);
  copystack_mutex m = COPYSTACK_MUTEX_INIT;
  copystack_mutex_unlock(&m);
  return 0;
}
// ALL: copystack: fatal: unlock of unlocked mutex
// ALL: task 1 [running]:
// ALL: main at {{.*}}dump_traceback_levels.c:25
// ALL: [chan receive,
// ALL: bystander at

// SINGLE: copystack: fatal: unlock of unlocked mutex
// SINGLE: task 1 [running]:
// SINGLE-NOT: bystander

// NONE: copystack: fatal: unlock of unlocked mutex
// NONE-NOT: task
