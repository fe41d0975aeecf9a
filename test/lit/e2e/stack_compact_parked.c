// Tasks parked across a collection keep only their live bytes: the second
// collection copies each parked task's frames to a heap block and frees its
// stack; when the task wakes, its frames go to a fresh stack and every
// pointer into the old one is relocated. The parked frames hold each shape
// of pointer into their own stack: a linked list of locals, a pointer to a
// local in a register, a chain of pointers up a recursion, a jmp_buf that
// is longjmp'ed to after the wake, a va_list in the middle of its
// arguments, and a long double beside them (a partly written word).
// Mode "deadlock": the compacted tasks' frames in the deadlock report.
// Under TSan, compaction is off (docs/stacks.md).
// UNSUPPORTED: tsan
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: %exits 2 %run %t deadlock 2>&1 | FileCheck %s --check-prefix=DUMP
#include "Inputs/check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

enum { kTasks = 240 };

static copystack_chan *parked, *wake, *results;

struct node {
  struct node *next;
  long value;
};

__attribute__((noinline)) static void park(void) {
  char c = 1;
  copystack_chan_send(parked, &c);
  copystack_chan_recv(wake, &c);
}

// A list of locals linked by pointers into the stack, and a pointer to a
// local kept in a register across the park.
__attribute__((noinline)) static long list_shape(long seed) {
  struct node nodes[8];
  for (int i = 0; i < 8; i++) {
    nodes[i].value = seed + i;
    nodes[i].next = i < 7 ? &nodes[i + 1] : 0;
  }
  long local = seed * 3;
  long *p = &local;
  CS_KEEP(nodes);
  park();
  long sum = *p;
  for (struct node *n = &nodes[0]; n; n = n->next)
    sum += n->value;
  return sum; // 3 seed + 8 seed + 28
}

// Each level keeps a pointer to its caller's local.
__attribute__((noinline)) static long chain_shape(long *up, int depth) {
  long mine = *up + 1;
  CS_KEEP(&mine);
  if (depth == 0) {
    park();
    return mine;
  }
  long below = chain_shape(&mine, depth - 1);
  return below + (*up == mine - 1 ? 0 : 1000000);
}

// setjmp before the park, longjmp after it: the jmp_buf's saved stack
// and frame pointers moved with the stack twice (out to the block, back).
static jmp_buf *jb_of_task[kTasks];
__attribute__((noinline)) static void jump_after_park(jmp_buf *jb) {
  park();
  longjmp(*jb, 5);
}
__attribute__((noinline)) static long jmp_shape(long seed, int slot) {
  jmp_buf jb;
  volatile long kept = seed;
  jb_of_task[slot] = &jb;
  int r = setjmp(jb);
  if (r == 0)
    jump_after_park(&jb);
  return kept + r;
}

// A va_list halfway through its arguments, and a long double.
__attribute__((noinline)) static long va_shape(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long first = va_arg(ap, long);
  volatile long double ld = 1.5L * (long double)first;
  park();
  long sum = first;
  for (int i = 1; i < n; i++)
    sum += va_arg(ap, long);
  va_end(ap);
  return sum + (ld == 1.5L * (long double)first ? 0 : 1000000);
}

static void worker(void *arg) {
  long i = (long)arg, got = 0, want = 0;
  switch (i % 4) {
  case 0:
    got = list_shape(i);
    want = 11 * i + 28;
    break;
  case 1: {
    long base = i;
    got = chain_shape(&base, (int)(i % 7) + 1);
    want = i + (i % 7) + 2;
    break;
  }
  case 2:
    got = jmp_shape(i, (int)i);
    want = i + 5;
    break;
  case 3:
    got = va_shape(5, i, 1L, 2L, 3L, 4L);
    want = i + 10;
    break;
  }
  long bad = got != want;
  if (bad)
    fprintf(stderr, "task %ld (shape %ld): got %ld, want %ld\n", i, i % 4,
            got, want);
  copystack_chan_send(results, &bad);
}

int main(int argc, char **argv) {
  int deadlock = argc > 1 && !strcmp(argv[1], "deadlock");
  parked = copystack_chan_make(1, kTasks);
  wake = copystack_chan_make(1, 0);
  results = copystack_chan_make(sizeof(long), 0);
  copystack_policy pol;
  copystack_get_policy(&pol);
  pol.collect_interval_ms = 0; // collections only when the test asks
  copystack_set_policy(&pol);
  REQUIRE(pol.compact_parked == 1);

  for (long i = 0; i < kTasks; i++)
    copystack_go(worker, (void *)i);
  char c;
  for (int i = 0; i < kTasks; i++)
    copystack_chan_recv(parked, &c);
  copystack_sleep_ns(20000000); // the last ones reach their receive

  copystack_stats before, mid, after;
  copystack_get_stats(&before);
  copystack_collect(); // sees them parked
  copystack_get_stats(&mid);
  copystack_collect(); // compacts them: parked across a collection
  copystack_get_stats(&after);
  printf("compacted %llu of %d\n", (unsigned long long)after.tasks_compacted,
         kTasks);
  REQUIRE(after.tasks_compacted == kTasks);
  REQUIRE(after.compacted_bytes > 0 &&
          after.compacted_bytes < (uint64_t)kTasks * 2048);
  // (Stress mode compacts every other park itself.)
  REQUIRE(after.stack_inuse +
              2048 * (after.tasks_compacted - before.tasks_compacted) <=
          before.stack_inuse);
  REQUIRE(after.sys >= after.compacted_bytes);
  printf("stacks freed: yes\n");
  fflush(stdout);

  if (deadlock) // every task waits on wake, main on results: nobody sends
    copystack_chan_recv(results, &c);

  for (int i = 0; i < kTasks; i++)
    copystack_chan_send(wake, &c);
  long bad = 0;
  for (int i = 0; i < kTasks; i++) {
    long b;
    copystack_chan_recv(results, &b);
    bad += b;
  }
  // (Under stress, a task that parks in its send may be compacted again.)
  for (int i = 0; i < 10000 && copystack_num_tasks() != 1; i++)
    copystack_sleep_ns(1000000);
  copystack_get_stats(&after);
  printf("woke %d, %ld wrong\n", kTasks, bad);
  REQUIRE(after.tasks_compacted == 0 && after.compacted_bytes == 0);
  REQUIRE(after.expansions >= (uint64_t)kTasks);
  return bad != 0;
}
// CHECK: compacted 240 of 240
// CHECK-NEXT: stacks freed: yes
// CHECK-NEXT: woke 240, 0 wrong

// DUMP: compacted 240 of 240
// DUMP: fatal error: all tasks are asleep - deadlock!
// DUMP: task {{[0-9]+}} [chan receive
// DUMP: park
// DUMP: list_shape
// DUMP: worker
