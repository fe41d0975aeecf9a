// A parked task whose frames point into its own stack is shrunk by
// collections, 64 KiB down to the 2 KiB floor; its pointers still work when
// it wakes, and it grows again.
// The numbers of copies are those of a plain build's frames; UBSan's
// checks make -O0 frames larger.
// UNSUPPORTED: ubsan && O0
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/lifecycle.h"

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

int main(void) {
  lifecycle_setup();
  char c = 1;
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
    idle =
        after.shrinks > before.shrinks && after.shrinks == had ? idle + 1 : 0;
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
  return 0;
}
// CHECK: shrank: yes
// CHECK: grown to 65536, shrunk to 2048 while parked, sum 622
// CHECK: grew again to 65536, sum 622
