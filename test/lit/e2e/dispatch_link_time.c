// A call to a function another object defines goes through the weak stub
// __copystack_dispatch.<callee>; an object that defines the callee
// instrumented defines that name too, as the callee itself, and the linker
// takes it: the call reaches the callee with no test at run time. Where
// the callee was built without the plugin, the stub stays and makes the
// call on the thread's stack. Checked with GNU ld, gold and lld, with the
// callee's object on the command line and in a static library, in normal,
// stress and verify mode: pointers to locals passed across the objects
// survive every move.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %cc -DPART_MAIN -c %s -o %t.dir/main.o
// RUN: %cc -DPART_WALK -c %s -o %t.dir/walk.o
// RUN: %plain_cc -DPART_PLAIN -c %s -o %t.dir/plain.o
// RUN: ar rcs %t.dir/libwalk.a %t.dir/walk.o
// RUN: %cc %t.dir/main.o %t.dir/walk.o %t.dir/plain.o -o %t.bfd
// RUN: %cc -fuse-ld=gold %t.dir/main.o %t.dir/plain.o -L%t.dir -lwalk -o %t.gold
// RUN: %cc -fuse-ld=lld %t.dir/main.o %t.dir/plain.o -L%t.dir -lwalk -o %t.lld
// RUN: %cc %t.dir/main.o %t.dir/plain.o -L%t.dir -lwalk -o %t.ar
// RUN: for b in bfd gold lld ar; do sh %S/Inputs/dispatch-bound.sh %t.$b walk; sh %S/Inputs/dispatch-bound.sh %t.$b plain_deep; done | FileCheck %s --check-prefix=LINK
// RUN: %run %t.bfd | FileCheck %s
// RUN: %run %t.gold | FileCheck %s
// RUN: %run %t.lld | FileCheck %s
// RUN: %run %t.ar | FileCheck %s
// The plain object defines no alias: its callers keep the stub.
// LINK:      walk: bound to the callee
// LINK-NEXT: plain_deep: stub
// LINK-NEXT: walk: bound to the callee
// LINK-NEXT: plain_deep: stub
// LINK-NEXT: walk: bound to the callee
// LINK-NEXT: plain_deep: stub
// LINK-NEXT: walk: bound to the callee
// LINK-NEXT: plain_deep: stub
#include "Inputs/check.h"

long walk(int n, long *acc);
long back(int n, long *acc);
long plain_deep(int n);

#ifdef PART_MAIN
// Called back from the other object, so the recursion crosses the objects
// in both directions with a pointer to each frame's local.
long back(int n, long *acc) {
  long here[8] = {n};
  CS_KEEP(here);
  long r = walk(n - 1, here);
  *acc += here[0];
  return r + here[0];
}

static void task(void *arg) {
  (void)arg;
  long acc = 0;
  long r = walk(400, &acc);
  printf("walk %ld acc %ld\n", r, acc);
  printf("plain %ld\n", plain_deep(3));
}

int main(void) {
  cs_fresh_task(task, 0);
  printf("grew: %s\n", cs_copies() > 0 ? "yes" : "no");
  return 0;
}
#endif

#ifdef PART_WALK
long walk(int n, long *acc) {
  if (n <= 0)
    return 0;
  long mine = 1;
  long r = back(n - 1, &mine);
  *acc += mine;
  return r + mine;
}
#endif

#ifdef PART_PLAIN
// Built without the plugin: 64 KiB of locals, far more than a task's stack
// has, so it must run on the thread's stack.
long plain_deep(int n) {
  volatile char big[65536];
  big[0] = (char)n;
  big[65535] = 1;
  return big[0] + big[65535];
}
#endif
// CHECK: walk 5413400 acc 40200
// CHECK: plain 4
// CHECK: grew: yes
