// The runtime keeps SIGURG for its preemption signal
// (sched/preempt_signal.h), and a program that uses SIGURG itself sees no
// difference: sigaction() installs and reports the program's handler,
// signals the program raises or sends reach it, the runtime's own signals
// never do, and SIG_DFL puts back the default (ignore). A task that spins
// without polls is still stopped by the signal while the program's handler
// is installed.
// UNSUPPORTED: tsan
// RUN: %cc --copystack-preempt=signal %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
// CHECK: reported: the program's handler
// CHECK-NEXT: handled after raise and pthread_kill: 2
// CHECK-NEXT: main ran again while the task spun: yes
// CHECK-NEXT: stopped by the signal: yes
// CHECK-NEXT: handled after the spin: 2
// CHECK-NEXT: reported after SIG_DFL: SIG_DFL
// CHECK-NEXT: handled after SIG_DFL and raise: 2
// CHECK-NEXT: done
#define _GNU_SOURCE
#include "Inputs/check.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static int stop;
static unsigned long spins;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void on_urg(int sig, siginfo_t *info, void *uctx) {
  (void)sig, (void)info, (void)uctx;
  handled = handled + 1;
}

__attribute__((noinline)) static void spinner(void *arg) {
  (void)arg;
  unsigned long n = 0;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
    __atomic_store_n(&spins, ++n, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_sigaction = on_urg;
  act.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&act.sa_mask);
  REQUIRE(sigaction(SIGURG, &act, NULL) == 0);
  REQUIRE(sigaction(SIGURG, NULL, &old) == 0);
  printf("reported: %s\n", (old.sa_flags & SA_SIGINFO) &&
                                   old.sa_sigaction == on_urg
                               ? "the program's handler"
                               : "something else");
  raise(SIGURG);
  pthread_kill(pthread_self(), SIGURG);
  printf("handled after raise and pthread_kill: %d\n", (int)handled);

  copystack_waitgroup_add(&wg, 1);
  copystack_go(spinner, NULL);
  usleep(100 * 1000); // runs again only if the spinner is stopped
  printf("main ran again while the task spun: %s\n",
         __atomic_load_n(&spins, __ATOMIC_RELAXED) ? "yes" : "no");
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_wait(&wg);
  copystack_stats s;
  copystack_get_stats(&s);
  printf("stopped by the signal: %s\n", s.preemptions_signal ? "yes" : "no");
  printf("handled after the spin: %d\n", (int)handled);

  REQUIRE(signal(SIGURG, SIG_DFL) != SIG_ERR);
  REQUIRE(sigaction(SIGURG, NULL, &old) == 0);
  printf("reported after SIG_DFL: %s\n",
         old.sa_handler == SIG_DFL ? "SIG_DFL" : "the program's handler");
  raise(SIGURG);
  printf("handled after SIG_DFL and raise: %d\n", (int)handled);
  printf("done\n");
  return 0;
}
