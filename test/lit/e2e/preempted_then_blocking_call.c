// A task preempted where it cannot move to another thread (at any
// instruction by the signal, at a prologue check, at a loop poll:
// sched/preempt.h) resumes only on the thread it stopped on. A task that
// then makes a call the runtime makes in place (a read of a terminal: no
// poller drives it, io.cc) must not block that thread: an I/O thread makes
// it instead, on the task's own buffer in its stack, which stays put
// meanwhile (io_pool.h pool_hop). Here the preempted task is the one that
// writes what the read waits for: with one worker, the read blocked the
// worker, and the writer with it, for good (and under qemu, whose pipes
// block in place, net_fork_child_polls.c's children hung so). The main
// task spins 200 ms (preempted about 20 times, each time with the reader
// queued on its thread), then writes a byte to the terminal's master
// side. In stress mode, where collections compact parked stacks every
// few milliseconds, the reader's must stay where the I/O thread writes
// (without the hold, 3 stress runs in 6 failed).
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
#define _GNU_SOURCE
#include "Inputs/check.h"

#include <fcntl.h>
#include <stdint.h>
#include <termios.h>
#include <unistd.h>

static int slave;
static char got;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void reader(void *arg) {
  (void)arg;
  REQUIRE(read(slave, &got, 1) == 1);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  REQUIRE(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
  slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  REQUIRE(slave >= 0);
  struct termios t;
  REQUIRE(tcgetattr(slave, &t) == 0);
  cfmakeraw(&t); // a byte is a read's worth, no line needed
  REQUIRE(tcsetattr(slave, TCSANOW, &t) == 0);
  alarm(30); // the hang ends as SIGALRM

  copystack_stats before;
  copystack_get_stats(&before);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(reader, 0);
  uint64_t end = copystack_now_ns() + 200 * 1000 * 1000;
  volatile uint64_t spins = 0;
  while (copystack_now_ns() < end)
    spins = spins + 1;
  copystack_stats after;
  copystack_get_stats(&after);
  REQUIRE(write(master, "x", 1) == 1);
  copystack_waitgroup_wait(&wg);
  printf("read %c; the writer was preempted: %s\n", got,
         after.preemptions > before.preemptions ? "yes" : "NO");
  return 0;
}
// CHECK: read x; the writer was preempted: yes
