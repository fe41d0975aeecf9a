// Signal handlers never run on a task stack: the runtime gives every thread
// that runs tasks an alternate signal stack and installs each handler the
// program asks for (sigaction, signal) to run there, with SA_ONSTACK. The
// kernel's signal frame (1-3 KiB) would not fit in a 2 KiB task stack.
//   - a handler installed with signal(), hit while main spins near the
//     bottom of its task stack, that itself recurses and formats;
//   - an SA_SIGINFO handler, and sigaction() reporting the program's own
//     handler and flags back (not the runtime's trampoline);
//   - timer signals landing on worker threads while tasks grow and park;
//   - siglongjmp out of a handler back into a task, which then grows its
//     stack again (the split-stack limit must be back in place).
// TSan delivers an asynchronous signal only when the thread calls a
// function it intercepts, and part 1 spins without calls: it would wait
// forever (san_tsan_signal_in_foreign.c has handlers under TSan).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t plain_hits, info_hits, prof_hits;
static volatile int handler_sum;
static char handler_text[64];

__attribute__((noinline)) static int handler_work(int depth) {
  char frame[256];
  memset(frame, depth, sizeof frame);
  CS_KEEP(frame);
  return depth ? handler_work(depth - 1) + frame[7] : frame[3];
}

static void on_alarm(int sig) {
  (void)sig;
  // Instrumented code on the alternate stack: recursion and a libc call.
  handler_sum = handler_work(40);
  snprintf(handler_text, sizeof handler_text, "handler %d", handler_sum);
  plain_hits++;
}

static void on_usr1(int sig, siginfo_t *info, void *uctx) {
  (void)uctx;
  if (sig == SIGUSR1 && info->si_signo == SIGUSR1)
    info_hits++;
}

static void on_prof(int sig) {
  (void)sig;
  prof_hits++;
}

// Spins at the bottom of a nearly full stack: the handler's frames cannot
// be on this stack.
__attribute__((noinline)) static void spin_deep(int depth) {
  char frame[128];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth > 0) {
    spin_deep(depth - 1);
    return;
  }
  while (!plain_hits) {
    CS_KEEP(frame);
  }
}

static sigjmp_buf jump_back;
static void on_usr2(int sig) {
  (void)sig;
  siglongjmp(jump_back, 1);
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static volatile int stop_workers;
static void busy(void *arg) {
  (void)arg;
  int rounds = 0;
  while (!stop_workers) {
    cs_burn(30 + rounds % 20);
    if (++rounds % 64 == 0)
      copystack_yield();
  }
  copystack_waitgroup_done(&wg);
}

int main(void) {
  // 1. signal(), hit deep in main's task stack.
  REQUIRE(signal(SIGALRM, on_alarm) != SIG_ERR);
  struct itimerval once = {{0, 0}, {0, 20000}};
  setitimer(ITIMER_REAL, &once, 0);
  spin_deep(12);
  printf("alarm: %d hits, %s\n", (int)plain_hits, handler_text);
  // CHECK: alarm: 1 hits, handler [[SUM:-?[0-9]+]]

  // 2. sigaction with SA_SIGINFO; the old action reads back as installed.
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  REQUIRE(sigaction(SIGUSR1, &sa, 0) == 0);
  raise(SIGUSR1);
  REQUIRE(sigaction(SIGUSR1, 0, &old) == 0);
  REQUIRE(old.sa_sigaction == on_usr1);
  REQUIRE(old.sa_flags & SA_SIGINFO);
  REQUIRE(signal(SIGALRM, SIG_DFL) == on_alarm);
  printf("siginfo: %d hits, old action is the program's\n", (int)info_hits);
  // CHECK: siginfo: 1 hits, old action is the program's

  // 3. Profiling-timer signals while tasks grow and yield on every worker.
  REQUIRE(signal(SIGPROF, on_prof) != SIG_ERR);
  struct itimerval prof = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_PROF, &prof, 0);
  int workers = 4;
  copystack_waitgroup_add(&wg, workers);
  for (int i = 0; i < workers; ++i)
    copystack_go(busy, 0);
  while (prof_hits < 50)
    copystack_yield();
  stop_workers = 1;
  copystack_waitgroup_wait(&wg);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, 0);
  printf("prof: at least 50 hits: %s\n", prof_hits >= 50 ? "yes" : "no");
  // CHECK: prof: at least 50 hits: yes

  // 4. siglongjmp out of a handler into this task; then grow again.
  REQUIRE(signal(SIGUSR2, on_usr2) != SIG_ERR);
  int local = 42;
  int *p = &local;
  if (sigsetjmp(jump_back, 1) == 0) {
    raise(SIGUSR2);
    printf("not reached\n");
  }
  unsigned long before = cs_growths();
  int r = cs_burn(200);
  printf("after siglongjmp: *p = %d, grew %s, burn %d\n", *p,
         cs_growths() > before ? "yes" : "no", r & 1);
  // CHECK: after siglongjmp: *p = 42, grew yes
  return 0;
}
