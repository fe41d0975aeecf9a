// A handler that makes foreign calls, run while the task is inside one
// (raise): ThreadSanitizer runs each handler with its ignores off and puts
// them back after, and the runtime keeps its account of foreign calls in
// step (SignalScope, platform/sanitizers.h). Then a fatal error from a
// handler (SIGQUIT's dump) ends the program as without TSan.
// RUN: %cc -fsanitize=thread %s -o %t
// RUN: env TSAN_OPTIONS=halt_on_error=1 %exits 2 %run %t 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer
#include "Inputs/check.h"
#include <signal.h>
#include <string.h>
#include <unistd.h>

static char text[64];
static int hits; // relaxed atomics: the handler may run in any task

static void on_usr1(int sig) {
  snprintf(text, sizeof text, "handled %d", sig == SIGUSR1);
  write(1, text, strlen(text));
  write(1, "\n", 1);
  __atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED);
}

int main(void) {
  REQUIRE(signal(SIGUSR1, on_usr1) != SIG_ERR);
  for (int i = 0; i < 3; i++)
    raise(SIGUSR1);
  printf("after: %d hits, %s\n", __atomic_load_n(&hits, __ATOMIC_RELAXED),
         text);
  fflush(stdout);
  raise(SIGQUIT);
  printf("not reached\n");
  return 0;
}
// CHECK: handled 1
// CHECK: handled 1
// CHECK: handled 1
// CHECK: after: 3 hits, handled 1
// CHECK: SIGQUIT: quit
// CHECK: task 1 [running]:
// CHECK: main at {{.*}}san_tsan_signal_in_foreign.c:30
// REQUIRES: san-thread
