// A spawn site learns the stack size its tasks end with: the next task
// there starts at it and does not grow (COPYSTACK_LEARN=0: every task grows).
// Each task reports the size it started with and the size it reached, its
// own growth (the process's growth count would include main's: in stress
// mode main's stack is halved at some of its parks, as many as the
// timing of its waits makes, and grows back). A task signals on a buffered
// channel, so that it never parks: in stress mode a parked stack may be
// halved, and a task would then end, and teach its site, half the size.
// The sizes are those of a plain build's frames; UBSan's checks make -O0
// frames larger.
// UNSUPPORTED: ubsan && O0
// Preemption off: a task preempted at a check parks through __morestack,
// which first makes room for the yield, and so may grow (under qemu in a
// loaded CI run one of the five later tasks grew, 2026-12-07).
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_PREEMPT=0 %run %t | FileCheck %s
// RUN: env COPYSTACK_PREEMPT=0 COPYSTACK_LEARN=0 %run %t | FileCheck %s --check-prefix=NOLEARN
#include "Inputs/lifecycle.h"

static copystack_chan *finished;

static void grows_to_32k(void *arg) {
  size_t *sizes = arg;
  sizes[0] = my_stack_size(); // the size it started with
  cs_burn(150);               // about 24 KiB of frames
  sizes[1] = my_stack_size(); // and reached: no park between, no shrink
  char c = 1;
  copystack_chan_send(finished, &c); // room in the buffer: no park
}

int main(void) {
  lifecycle_setup();
  finished = copystack_chan_make(1, 1);
  char c = 1;
  size_t first[2] = {0, 0}, later[2] = {0, 0};
  copystack_go(grows_to_32k, first);
  copystack_chan_recv(finished, &c);
  while (copystack_num_tasks() > 1)
    copystack_yield();
  int grew = 0; // later tasks that grew
  for (int i = 0; i < 5; i++) {
    copystack_go(grows_to_32k, later);
    copystack_chan_recv(finished, &c);
    while (copystack_num_tasks() > 1)
      copystack_yield();
    grew += later[1] > later[0];
  }
  printf("first started at %zu, reached %zu; later ones started at %zu, "
         "reached %zu, %d of 5 grew\n",
         first[0], first[1], later[0], later[1], grew);
  return 0;
}
// CHECK: first started at 2048, reached 32768; later ones started at 32768, reached 32768, 0 of 5 grew
// NOLEARN: first started at 2048, reached 32768; later ones started at 2048, reached 32768, 5 of 5 grew
