// A worker stuck in a foreign call while tasks wait gets a spare thread in
// its place; when the OS will not start one (here: no address space left
// for its stack), the program goes on without it. The stuck worker keeps
// its slot, the waiting task runs once the call returns (main yields as
// it returns: the monitor asked while it was in the call), and the
// runtime says once why it could not help. (Before: a fatal error, "cannot start a
// worker thread", which a program with tens of thousands of large stacks
// met when they used up the process's mappings.)
// The address-space limit leaves the sanitizers' reservations no room.
// UNSUPPORTED: tsan || ubsan
// RUN: %cc %s -o %t
// RUN: %run COPYSTACK_WORKERS=1 %t 2>&1 | FileCheck %s
#include "Inputs/check.h"
#include "Inputs/spin.h"
#include <sys/resource.h>
#include <unistd.h>

static volatile int spinning;
static volatile int ran_during_spin = -1;

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static copystack_waitgroup gate = COPYSTACK_WAITGROUP_INIT;

static void queued(void *arg) {
  (void)arg;
  copystack_waitgroup_wait(&gate); // parked until the limit is in place
  ran_during_spin = spinning;
  copystack_waitgroup_done(&wg);
}

// The foreign call: 300 ms, and the flag cleared before it returns.
__attribute__((annotate("copystack_nosplit"), noinline)) static void
spin_then_clear(void) {
  spin_ms(300);
  spinning = 0;
}

// Limits the address space to what the process has now plus 6 MiB: a
// worker thread's 8 MiB stack no longer fits.
static void no_room_for_threads(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  REQUIRE(f);
  unsigned long pages = 0;
  REQUIRE(fscanf(f, "%lu", &pages) == 1);
  fclose(f);
  rlim_t bytes = (rlim_t)pages * sysconf(_SC_PAGESIZE) + (6 << 20);
  struct rlimit r = {bytes, bytes};
  REQUIRE(setrlimit(RLIMIT_AS, &r) == 0);
}

int main(void) {
  // The task exists before the limit (its stack and structure need
  // memory) but waits, parked, until the limit is in place: the limit's
  // own foreign calls (fopen, fscanf) can hold the worker for two of the
  // monitor's looks on a loaded machine, and a task waiting to run then
  // would get a spare started before the limit.
  copystack_waitgroup_add(&wg, 1);
  copystack_waitgroup_add(&gate, 1);
  copystack_go(queued, 0);
  copystack_yield(); // queued runs until it parks on the gate
  no_room_for_threads();
  copystack_waitgroup_done(&gate);
  spinning = 1;
  spin_then_clear();
  printf("spun\n");
  fflush(stdout);
  copystack_waitgroup_wait(&wg);
  printf("queued task ran during the spin: %d\n", ran_during_spin);
  return 0;
}
// CHECK: cannot start a spare worker thread for a worker stuck in a foreign call
// CHECK-SAME: its tasks wait for the call, and the monitor tries again later
// CHECK-NOT: cannot start
// CHECK: spun
// CHECK-NOT: cannot start
// CHECK: queued task ran during the spin: 0
