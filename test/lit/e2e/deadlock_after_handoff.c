// A deadlock is reported after the monitor retired the program's first
// thread: main's task spins in a foreign call long enough that the monitor
// hands worker 0's slot to a spare thread, and the first thread, its call
// done, retires and waits for the program to end. It still belongs to the
// runtime: before it was counted as such, it looked like a thread of the
// program's that could wake a task, and the deadlock below hung silently.
// RUN: %cc %s -o %t
// RUN: %exits 2 timeout 30 %run COPYSTACK_WORKERS=1 %t 2>&1 | FileCheck %s
#include "Inputs/check.h"
#include "Inputs/spin.h"

static void queued(void *arg) { (void)arg; }

int main(void) {
  copystack_chan *ch = copystack_chan_make(sizeof(int), 0);
  // Work waiting behind the spin: the monitor hands the slot to a spare.
  for (int i = 0; i < 4; i++)
    copystack_go(queued, 0);
  spin_ms(300);
  printf("spun\n");
  fflush(stdout);
  int v;
  copystack_chan_recv(ch, &v); // nobody sends
  printf("not reached\n");
  return 0;
}
// CHECK: spun
// CHECK: fatal error: all tasks are asleep - deadlock!
// CHECK-NOT: not reached
