// The stack lifecycle: a parked task whose frames point into its own stack
// is shrunk by collections and its pointers still work, then it grows
// again; memory goes back to the OS; start sizes adapt to the average use,
// are learned per spawn site, and can be asked for at the spawn.
// RUN: %cc %s -o %t
// RUN: %run %t shrink | FileCheck %s --check-prefix=SHRINK
// RUN: %run %t release | FileCheck %s --check-prefix=RELEASE
// RUN: %run %t learn | FileCheck %s --check-prefix=LEARN
// RUN: env COPYSTACK_LEARN=0 %run %t learn | FileCheck %s --check-prefix=NOLEARN
// RUN: %run %t hint | FileCheck %s --check-prefix=HINT
// RUN: %run %t adaptive | FileCheck %s --check-prefix=ADAPTIVE
// RUN: env COPYSTACK_ADAPTIVE=0 %run %t adaptive | FileCheck %s --check-prefix=NOADAPT
#include "Inputs/check.h"
#include <string.h>

static copystack_chan *wake, *done, *parking;

static size_t my_stack_size(void) {
  copystack_stack_info info;
  REQUIRE(copystack_current_stack(&info) == 0);
  return info.size;
}

struct node {
  struct node *next;
  long value;
};

// Parks with a list of nodes on its own stack, linked by pointers into
// that stack, and a pointer to a local held across the park.
__attribute__((noinline)) static long park_holding_pointers(void) {
  struct node nodes[6];
  for (int i = 0; i < 6; i++) {
    nodes[i].value = 100 + i;
    nodes[i].next = i < 5 ? &nodes[i + 1] : 0;
  }
  struct node *head = &nodes[0];
  long local = 7;
  long *p = &local;
  CS_KEEP(nodes);
  char c = 1;
  copystack_chan_send(parking, &c); // buffered: does not block
  copystack_chan_recv(wake, &c);    // the collector moves the stack here
  long sum = *p;
  for (struct node *n = head; n; n = n->next)
    sum += n->value;
  return sum;
}

static void shrinker(void *arg) {
  (void)arg;
  cs_burn(300); // grows to 64 KiB
  size_t grown = my_stack_size();
  long sum = park_holding_pointers();
  size_t after = my_stack_size();
  printf("grown to %zu, shrunk to %zu while parked, sum %ld\n", grown, after,
         sum);
  cs_burn(300); // and grows again
  printf("grew again to %zu, sum %ld\n", my_stack_size(),
         park_holding_pointers());
  char c = 1;
  copystack_chan_send(done, &c);
}

__attribute__((noinline)) static int deep_then_wait(int depth) {
  char frame[128];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth == 0) {
    char c = 1;
    copystack_chan_send(done, &c);
    copystack_chan_recv(wake, &c); // closed: returns at once
    return 0;
  }
  return deep_then_wait(depth - 1) + frame[0];
}

static void deep_and_gone(void *arg) {
  (void)arg;
  deep_then_wait(500); // about 80 KiB: a 128 KiB stack
}

static void grows_to_32k(void *arg) {
  size_t *sizes = arg;
  *sizes = my_stack_size(); // the size it started with
  cs_burn(150);             // about 24 KiB of frames
  char c = 1;
  copystack_chan_send(done, &c);
}

static void report_size(void *arg) {
  *(size_t *)arg = my_stack_size();
  char c = 1;
  copystack_chan_send(done, &c);
}

// Parks inside a frame of about 6 KiB.
__attribute__((noinline)) static void park_in_big_frame(void) {
  char big[6000];
  memset(big, 1, sizeof big);
  CS_KEEP(big);
  char c;
  copystack_chan_send(done, &c);
  copystack_chan_recv(wake, &c);
}

static void big_parker(void *arg) {
  (void)arg;
  park_in_big_frame();
}

static uint64_t growths(void) {
  copystack_stats s;
  copystack_get_stats(&s);
  return s.growths;
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  wake = copystack_chan_make(1, 0);
  done = copystack_chan_make(1, 0);
  parking = copystack_chan_make(1, 1);
  copystack_policy pol;
  copystack_get_policy(&pol);
  pol.collect_interval_ms = 0; // collections only when the test asks
  copystack_set_policy(&pol);
  char c = 1;

  if (!strcmp(argv[1], "shrink")) {
    copystack_go(shrinker, 0);
    // Collections halve the parked task's stack once each, 64K down to the
    // floor; until it has parked (stress mode is slow), they find it
    // running and leave it alone.
    copystack_chan_recv(parking, &c);
    copystack_stats before, after;
    copystack_get_stats(&before);
    after = before;
    // (Stress mode also halves a stack when it parks, so the count varies;
    // what the task reports when it wakes is the check.)
    int idle = 0;
    for (int i = 0; i < 2000 && idle < 5; i++) {
      uint64_t had = after.shrinks;
      copystack_collect();
      copystack_get_stats(&after);
      idle = after.shrinks > before.shrinks && after.shrinks == had ? idle + 1
                                                                    : 0;
      copystack_sleep_ns(1000000);
    }
    printf("shrank: %s\n", after.shrinks > before.shrinks ? "yes" : "NO");
    copystack_chan_send(wake, &c);
    copystack_chan_recv(parking, &c);
    copystack_sleep_ns(5000000);
    for (int i = 0; i < 6; i++)
      copystack_collect();
    copystack_chan_send(wake, &c);
    copystack_chan_recv(done, &c);
  } else if (!strcmp(argv[1], "release")) {
    // 50 tasks grow deep and wait; then they finish and a collection gives
    // their stacks back (verify mode gives each back as it is released).
    copystack_stats start, peak, after;
    copystack_get_stats(&start);
    for (int i = 0; i < 50; i++)
      copystack_go(deep_and_gone, 0);
    for (int i = 0; i < 50; i++)
      copystack_chan_recv(done, &c);
    copystack_get_stats(&peak);
    copystack_chan_close(wake); // they return
    while (copystack_num_tasks() > 1)
      copystack_yield();
    copystack_collect();
    copystack_get_stats(&after);
    printf("released: %s, OS memory for stacks fell: %s\n",
           after.stack_released >= start.stack_released + 50 * 65536
               ? "yes" : "NO",
           after.stack_sys + 50 * 65536 <= peak.stack_sys ? "yes" : "NO");
  } else if (!strcmp(argv[1], "learn")) {
    size_t first = 0, last = 0;
    uint64_t g0 = growths();
    copystack_go(grows_to_32k, &first);
    copystack_chan_recv(done, &c);
    while (copystack_num_tasks() > 1)
      copystack_yield();
    uint64_t g1 = growths();
    for (int i = 0; i < 5; i++) {
      copystack_go(grows_to_32k, &last);
      copystack_chan_recv(done, &c);
      while (copystack_num_tasks() > 1)
        copystack_yield();
    }
    uint64_t g2 = growths();
    printf("first started at %zu, grew %llu times; later ones started at "
           "%zu, grew %llu times\n",
           first, (unsigned long long)(g1 - g0), last,
           (unsigned long long)(g2 - g1));
  } else if (!strcmp(argv[1], "hint")) {
    size_t size = 0;
    copystack_go_sized(report_size, &size, 48 * 1024);
    copystack_chan_recv(done, &c);
    printf("hinted 48K, started at %zu\n", size);
  } else if (!strcmp(argv[1], "adaptive")) {
    printf("start before: %zu\n", copystack_start_stack());
    for (int i = 0; i < 100; i++) {
      copystack_go(big_parker, 0);
      copystack_chan_recv(done, &c);
    }
    copystack_sleep_ns(2000000);
    copystack_collect();
    printf("start after 100 tasks parked in 6 KB frames: %zu\n",
           copystack_start_stack());
    size_t size = 0;
    copystack_go(report_size, &size);
    copystack_chan_recv(done, &c);
    printf("a new task started at %s the adaptive size\n",
           size >= copystack_start_stack() ? "at least" : "LESS THAN");
    copystack_chan_close(wake);
  }
  return 0;
}
// SHRINK: shrank: yes
// SHRINK: grown to 65536, shrunk to 2048 while parked, sum 622
// SHRINK: grew again to 65536, sum 622
// RELEASE: released: yes, OS memory for stacks fell: yes
// LEARN: first started at 2048, grew {{[1-9]}} times; later ones started at 32768, grew 0 times
// NOLEARN: first started at 2048, grew [[N:[0-9]+]] times; later ones started at 2048, grew {{[1-9][0-9]*}} times
// HINT: hinted 48K, started at 65536
// ADAPTIVE: start before: 2048
// ADAPTIVE: start after 100 tasks parked in 6 KB frames: 8192
// ADAPTIVE: a new task started at at least the adaptive size
// NOADAPT: start before: 2048
// NOADAPT: start after 100 tasks parked in 6 KB frames: 2048
