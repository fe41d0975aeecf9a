// The gdb commands the runtime embeds (.debug_gdb_scripts): "copystack
// tasks" lists every task with its state and where it stopped, and
// "copystack task ID bt" prints a parked task's frames.
// REQUIRES: normal, gdb || gdb-stub
// RUN: %cc %s -o %t
// RUN: %gdb -ex run -ex "copystack tasks" -ex "copystack task 3 bt" -ex "bt" -ex kill %t 2>&1 | FileCheck %s
#include <copystack/copystack.h>
#include <stdlib.h>

static copystack_chan *ch;

__attribute__((noinline)) static void deep_wait(int n) {
  char pad[64];
  __asm__ volatile("" : : "r"(pad) : "memory");
  if (n) {
    deep_wait(n - 1);
    return;
  }
  int v;
  copystack_chan_recv(ch, &v);
}

static volatile int after;
static void waiter(void *arg) {
  deep_wait((int)(long)arg);
  after = 1; // not a tail call: waiter keeps its frame
}

int main(void) {
  ch = copystack_chan_make(sizeof(int), 0);
  for (long i = 0; i < 3; i++)
    copystack_go(waiter, (void *)(i * 10));
  copystack_sleep_ns(50000000);
  abort();
}
// CHECK: id     state          stack moves  where
// CHECK-DAG: {{^}}  2      suspended {{.*}} parked on 0x{{[0-9a-f]+}}, in copystack_chan_recv
// CHECK-DAG: {{^}}  3      suspended {{.*}} parked on 0x{{[0-9a-f]+}}, in copystack_chan_recv
// CHECK-DAG: {{^}}  4      suspended {{.*}} parked on 0x{{[0-9a-f]+}}, in copystack_chan_recv
// CHECK-DAG: {{^}}* 1      running {{.*}} running on thread
// CHECK: #0 {{.*}}copystack_chan_recv
// CHECK: deep_wait (
// CHECK: waiter (
// CHECK-NEXT: __copystack_task_start
// CHECK: abort
// CHECK: main ()
