// Vector arguments wider than 128 bits (ymm with AVX, zmm with AVX-512)
// are live in their registers at a callee's stack check. __morestack's
// register block keeps xmm0-7; their upper bits are kept beside it
// (morestack.S): on the thread's stack while the stack grows, and below
// the block while a task preempted at the check is parked and other tasks
// run on its thread. Before, a 2 KiB task whose recursion passed 256-bit
// vectors lost their upper halves at its first growth (the runtime's AVX
// copy ends with vzeroupper), and got another task's values after a
// preemption there.
//
// Built for the CPU's vector unit (the ABI passes these vectors in
// registers only when the whole program is), one program per unit this
// CPU has. Two tasks share one worker, each recursing with vectors whose
// every lane is checked on entry; the recursion has no loop (no loop poll,
// whose call makes LLVM save vectors itself), so the monitor's requests
// land at the prologue checks.
// RUN: %if cpu-avx2 %{ %cc -mavx2 -DLANES=4 %s -o %t4 && env COPYSTACK_WORKERS=1 %run %t4 | FileCheck %s %}
// RUN: %if cpu-avx512f %{ %cc -mavx512f -DLANES=8 %s -o %t8 && env COPYSTACK_WORKERS=1 %run %t8 | FileCheck %s %}
#include "Inputs/check.h"

#include <time.h>

typedef double vec __attribute__((vector_size(8 * LANES)));

static long wrong[2], calls[2];
static int last = -1; // the task that ran last, and how often it changed
static long switches;

// Lane i of a is depth + i; of b, who * 10 + i.
__attribute__((noinline)) static long walk(vec a, vec b, int depth, int who) {
  volatile char frame[64]; // a frame to grow for
  frame[0] = (char)depth;
  calls[who]++;
#pragma clang loop unroll(full)
  for (int i = 0; i < LANES; i++) // unrolled: no loop poll
    if (a[i] != depth + i || b[i] != who * 10 + i)
      wrong[who]++;
  if (depth == 0)
    return frame[0];
  return walk(a - 1, b, depth - 1, who) + frame[0];
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void worker(void *arg) {
  int who = (int)(long)arg;
  vec a, b;
  for (int i = 0; i < LANES; i++) {
    a[i] = 100 + i;
    b[i] = who * 10 + i;
  }
  double end = now() + 0.15;
  while (now() < end) {
    int was = __atomic_exchange_n(&last, who, __ATOMIC_RELAXED);
    if (was != who && was != -1)
      __atomic_fetch_add(&switches, 1, __ATOMIC_RELAXED);
    walk(a, b, 100, who);
  }
  copystack_waitgroup_done(&wg);
}

int main(void) {
  copystack_waitgroup_add(&wg, 2);
  copystack_go(worker, (void *)0L);
  copystack_go(worker, (void *)1L);
  copystack_waitgroup_wait(&wg);
  REQUIRE(calls[0] > 0 && calls[1] > 0);
  printf("%d lanes: %ld wrong, the tasks %s\n", LANES, wrong[0] + wrong[1],
         switches > 0 ? "took turns" : "did NOT take turns");
  return 0;
}
// CHECK: {{[48]}} lanes: 0 wrong, the tasks took turns
