// COPYSTACK_VERIFY_REUSE=N: verify mode poisons the stacks tasks leave and
// reuses their addresses after N more, instead of fencing each one at a
// fresh address. In stress mode (a move per call) a task's stack then
// cycles through a handful of addresses; without the setting every move
// takes a new one. A pointer the relocation missed is still caught: a
// write through it changes the poison, which is found when the address
// comes up for reuse, and a pointer read through it is poison, which
// faults when used as an address. Both are named.
// REQUIRES: normal
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_VERIFY=1 COPYSTACK_STRESS=1 COPYSTACK_VERIFY_REUSE=4 %t count | FileCheck %s --check-prefix=REUSE
// RUN: env COPYSTACK_VERIFY=1 COPYSTACK_STRESS=1 COPYSTACK_VERIFY_REUSE=0 %t count | FileCheck %s --check-prefix=FENCE
// RUN: %exits 2 env COPYSTACK_VERIFY=1 COPYSTACK_STRESS=1 COPYSTACK_VERIFY_REUSE=4 %t write > %t.write 2>&1
// RUN: FileCheck %s --check-prefix=WRITE < %t.write
// RUN: %exits 2 env COPYSTACK_VERIFY=1 COPYSTACK_STRESS=1 COPYSTACK_VERIFY_REUSE=4 %t read > %t.read 2>&1
// RUN: FileCheck %s --check-prefix=READ < %t.read
// Without reuse the same stale read faults on the fenced stack:
// RUN: %exits 2 env COPYSTACK_VERIFY=1 COPYSTACK_STRESS=1 COPYSTACK_VERIFY_REUSE=0 %t read > %t.fenced 2>&1
// RUN: FileCheck %s --check-prefix=FENCED < %t.fenced
// The queues hold at most 256 MiB: 300 tasks that each grow to 1 MiB and
// leave 2 MiB of stacks behind stay far below 600 MiB resident (with no
// collection to fence the queues meanwhile; without the cap, 617 MB).
// Stress mode reuses after 16 unless told otherwise; verify alone fences:
// RUN: env COPYSTACK_STRESS=1 COPYSTACK_VERIFY=1 COPYSTACK_HELP=1 %t | FileCheck %s --check-prefix=STRESS16
// RUN: env COPYSTACK_STRESS=1 COPYSTACK_VERIFY=1 COPYSTACK_VERIFY_REUSE=0 COPYSTACK_HELP=1 %t | FileCheck %s --check-prefix=NOREUSE
// RUN: env COPYSTACK_VERIFY=1 COPYSTACK_HELP=1 %t | FileCheck %s --check-prefix=NOREUSE
// RUN: env COPYSTACK_VERIFY=1 COPYSTACK_VERIFY_REUSE=1024 COPYSTACK_COLLECT_MS=0 %t cap | FileCheck %s --check-prefix=CAP
// RUN: %exits 2 env COPYSTACK_VERIFY_REUSE=1025 %t count 2>&1 | FileCheck %s --check-prefix=BAD
#include "Inputs/check.h"

#include <stdint.h>
#include <string.h>

// REUSE: 1000 moves, at most 16 addresses
// FENCE: 1000 moves, 1000 addresses
// WRITE: verify: 1 word(s) of the stack [{{.*}}), which a task left when its stack was copied, were written after it left (the first at {{.*}}, now 0x{{dbdbdbdb00000007|7dbdbdbdb}};{{.*}}), found when its address was reused: a write through a pointer the relocation missed
// READ: verify: {{.*}}main{{.*}} used {{%?[a-z0-9]+}} = 0xdbdbdbdbdbdbdbdb, verify mode's poison, as an address
// CAP: 300 tasks grew 9 times each; resident grew by less than 300 MiB
// BAD: copystack: fatal: COPYSTACK_VERIFY_REUSE=1025: expected a number of stacks from 0 to 1024
// FENCED: verify: {{.*}}main{{.*}} used a pointer the relocation missed: {{.*}} a task left when its stack was copied

#include "Inputs/stale.h"

// A call that moves the stack in stress mode: a function with a prologue
// check, which a leaf needing no stack does not have (docs/abi.md): a
// local in its frame map keeps one.
__attribute__((noinline)) static int leaf(int i) {
  volatile int x = i;
  return x & 1;
}
// The address of one of its locals, as bits the relocation cannot see: a
// pointer into the stack as it is during this call (which moved it).
__attribute__((noinline)) static uintptr_t where(int i) {
  volatile int x = i;
  int *volatile px = (int *)&x;
  volatile uintptr_t a = 0;
  COPY_BITS(a, px);
  return a + (uintptr_t)(leaf(x) & 0);
}

// Resident bytes of this process.
static uint64_t resident(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  REQUIRE(f);
  unsigned long size = 0, pages = 0;
  REQUIRE(fscanf(f, "%lu %lu", &size, &pages) == 2);
  fclose(f);
  return (uint64_t)pages * 4096;
}

// 224-byte locals: little enough to stay in the frame at -O0 on AArch64
// too (passes/Policy.h, kO0FrameLocals).
__attribute__((noinline)) static int deep(int depth) {
  char frame[224];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth <= 0)
    return frame[0];
  return deep(depth - 1) + frame[0];
}

static copystack_chan *done;
static void grow_and_leave(void *arg) {
  (void)arg;
  char c = (char)deep(3400); // 800 to 950 KiB
  copystack_chan_send(done, &c);
}

// The queues' cap, apart from main: its policy and statistics would make
// main's locals more than an -O0 frame keeps on AArch64 (passes/Policy.h,
// kO0FrameLocals), and main's stale pointers below must point into its
// stack.
__attribute__((noinline)) static void cap(void) {
  enum { kTasks = 300 };
  done = copystack_chan_make(1, 0);
  copystack_policy pol; // every task starts at 2 KiB and grows
  copystack_get_policy(&pol);
  pol.learn_start = 0;
  pol.adaptive_start = 0;
  copystack_set_policy(&pol);
  copystack_stats s0, s1;
  copystack_get_stats(&s0);
  uint64_t before = resident();
  for (int i = 0; i < kTasks; i++) {
    char c;
    copystack_go(grow_and_leave, 0);
    copystack_chan_recv(done, &c);
  }
  uint64_t grew = resident() - before;
  copystack_get_stats(&s1);
  // 2 KiB to 1 MiB is 9 growths: each leaves the stack it grew from, and
  // the task its 1 MiB one, 2 MiB in all.
  unsigned long long per_task = (s1.growths - s0.growths) / kTasks;
  printf("%d tasks grew %llu times each; resident grew by %s 300 MiB\n",
         kTasks, per_task, grew < (300ull << 20) ? "less than" : "at least");
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  if (strcmp(argv[1], "cap") == 0) {
    cap();
    return 0;
  }
  if (strcmp(argv[1], "count") == 0) {
    enum { kMoves = 1000 };
    static uintptr_t seen[kMoves];
    int distinct = 0;
    for (int i = 0; i < kMoves; i++) {
      uintptr_t a = where(i);
      int j = 0;
      while (j < distinct && seen[j] != a)
        j++;
      if (j == distinct)
        seen[distinct++] = a;
    }
    if (distinct <= 16)
      printf("%d moves, at most 16 addresses\n", kMoves);
    else
      printf("%d moves, %d addresses\n", kMoves, distinct);
    return 0;
  }
  int anchor = 42;
  int *volatile p = &anchor;
  int *volatile *volatile pp = &p;
  // Copies of the bits: the relocation leaves them pointing into this
  // stack as it is now, as it would a pointer its maps failed to describe.
  volatile uintptr_t stale_int = 0, stale_ptr = 0;
  COPY_BITS(stale_int, p);
  COPY_BITS(stale_ptr, pp);
  int s = leaf(1) + *p; // the stack moves: stale_* point into the old one
  if (strcmp(argv[1], "write") == 0) {
    *(volatile int *)stale_int = 7;
    for (int i = 0; i < 100; i++) // the old address comes up for reuse
      s += leaf(i);
    printf("not caught: %d\n", s);
    return 0;
  }
  int *q = *(int *volatile *)stale_ptr; // poison, or a fault on the fence
  printf("not caught: %d\n", *q + s);
  return 0;
}
// STRESS16: COPYSTACK_VERIFY_REUSE=16{{$}}
// NOREUSE: COPYSTACK_VERIFY_REUSE=0{{$}}
