// Preemption at a loop's back edge: with one worker, a task spinning in a
// loop that calls nothing no longer starves the others; main, asleep while
// it spins, runs again and stops it.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"

static volatile int stop;
static volatile unsigned long spins;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void spinner(void *arg) {
  (void)arg;
  while (!stop)
    spins++;
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, 1);
  copystack_go(spinner, 0);
  copystack_sleep_ns(30000000); // the spinner has the only worker now
  printf("main ran again while the task spun: %s\n",
         spins > 0 ? "yes" : "NO");
  stop = 1;
  copystack_waitgroup_wait(&wg);
  printf("spinner stopped\n");
  return 0;
}
// CHECK: main ran again while the task spun: yes
// CHECK: spinner stopped
