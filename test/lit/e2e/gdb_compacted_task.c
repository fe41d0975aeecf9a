// gdb on a task whose parked stack was compacted: "copystack tasks" says
// so and how many bytes of frames it keeps, and "copystack task ID bt"
// walks its frames in the heap block they wait in, by the unwind tables
// (waiter keeps no frame pointer), in the live process and in a core file,
// without calling any function of the program (%gdb forbids it).
// REQUIRES: normal, gdb || gdb-stub
// RUN: %cc %s -o %t
// RUN: %gdb -ex run -ex "copystack tasks" -ex "copystack task 2 bt" -ex kill %t 2>&1 | FileCheck %s
// A core file of a program under qemu-user holds qemu's whole reservation
// (1.6 GB, some minutes to write): only where the program runs natively.
// RUN: rm -f %t.core
// RUN: %if !qemu %{ %gdb -ex run -ex "gcore %t.core" -ex kill %t %}
// RUN: %if !qemu %{ %gdb -ex "copystack task 2 bt" %t %t.core 2>&1 | FileCheck %s --check-prefix=CORE %}
#include <copystack/copystack.h>
#include <stdlib.h>

static copystack_chan *ch, *parked;

__attribute__((noinline)) static void deep_wait(int n) {
  char pad[64];
  __asm__ volatile("" : : "r"(pad) : "memory");
  if (n) {
    deep_wait(n - 1);
    return;
  }
  int v = 1;
  copystack_chan_send(parked, &v);
  copystack_chan_recv(ch, &v);
}

static volatile int after;
static void waiter(void *arg) {
  deep_wait((int)(long)arg);
  after = 1; // not a tail call: waiter keeps its frame
}

int main(void) {
  ch = copystack_chan_make(sizeof(int), 0);
  parked = copystack_chan_make(sizeof(int), 1);
  copystack_go(waiter, (void *)3L);
  int v;
  copystack_chan_recv(parked, &v);
  copystack_sleep_ns(10000000);
  copystack_collect();
  copystack_collect(); // parked across a collection: compacted
  abort();
}
// CHECK: id     state          stack moves  where
// CHECK: {{^}}  2      compacted {{.*}} parked on 0x{{[0-9a-f]+}}, in copystack_chan_recv ({{[0-9]+}} B of frames kept)
// CHECK: task 2 is compacted: {{[0-9]+}} bytes of frames wait in a heap block until it runs
// CHECK-NEXT: #0 {{.*}} in copystack_chan_recv
// CHECK-NEXT: #1 {{.*}} in deep_wait
// CHECK-NEXT: #2 {{.*}} in deep_wait
// CHECK-NEXT: #3 {{.*}} in deep_wait
// CHECK: {{^}}#{{[0-9]+}} {{.*}} in waiter
// CHECK-NOT: no unwind tables

// CORE: task 2 is compacted: {{[0-9]+}} bytes of frames wait in a heap block until it runs
// CORE-NEXT: #0 {{.*}} in copystack_chan_recv
// CORE-NEXT: #1 {{.*}} in deep_wait
// CORE-NEXT: #2 {{.*}} in deep_wait
// CORE-NEXT: #3 {{.*}} in deep_wait
// CORE: {{^}}#{{[0-9]+}} {{.*}} in waiter
// CORE-NOT: no unwind tables
