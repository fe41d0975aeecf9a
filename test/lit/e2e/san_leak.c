// LeakSanitizer (alone, and as part of AddressSanitizer) with tasks: a
// block only a parked task's stack points to is not a leak; a block nothing
// points to is reported, with the task's frames in its allocation stack
// when the sanitizer unwinds malloc's callers with libgcc's unwinder
// (fast_unwind_on_malloc=0: malloc runs on the thread's stack, where the
// frame-pointer unwinder stops). Normal mode only: see docs/debugging.md.
// Run 100 times before the runtime stopped caching pinned chunks under
// LeakSanitizer, the leak went unreported 1-3 times: a finished task's
// pinned chunk, cached in the thread's TLS, still held malloc's result.
// REQUIRES: normal
// RUN: %cc -fsanitize=leak %s -o %t
// RUN: env LSAN_OPTIONS=fast_unwind_on_malloc=0 %exits 23 %run %t 2>&1 | FileCheck %s
// RUN: %cc -fsanitize=address %s -o %t.asan
// RUN: %exits 1 %run %t.asan 2>&1 | FileCheck %s --check-prefix=ASAN
#include "Inputs/check.h"
#include <string.h>

static copystack_chan *gate;
static copystack_waitgroup parked = COPYSTACK_WAITGROUP_INIT;

__attribute__((noinline)) static void *leak_it(int n) {
  char frame[128];
  CS_KEEP(frame);
  if (n > 0)
    return leak_it(n - 1);
  void *p = malloc(4242);
  memset(p, 1, 4242);
  return p;
}

static void holder(void *arg) {
  (void)arg;
  char *kept = malloc(1717); // only this parked task's stack points here
  memset(kept, 2, 1717);
  CS_KEEP(&kept);
  copystack_waitgroup_done(&parked);
  int v;
  copystack_chan_recv(gate, &v); // never sent: parked at exit
  printf("%d\n", kept[0]);
}

static void leaker(void *arg) {
  (void)arg;
  cs_burn(50);
  void *p = leak_it(10);
  memset(&p, 0, sizeof p);
  copystack_waitgroup_done(&parked);
}

int main(void) {
  gate = copystack_chan_make(sizeof(int), 0);
  copystack_waitgroup_add(&parked, 2);
  copystack_go(holder, 0);
  copystack_go(leaker, 0);
  copystack_waitgroup_wait(&parked);
  printf("exiting\n");
  fflush(stdout);
  return 0;
}
// CHECK: exiting
// ASAN: exiting
// ASAN: ERROR: LeakSanitizer: detected memory leaks
// ASAN-NOT: 1717 byte
// ASAN: Direct leak of 4242 byte(s) in 1 object(s) allocated from:
// ASAN-NOT: 1717 byte
// ASAN: SUMMARY: AddressSanitizer: 4242 byte(s) leaked in 1 allocation(s).
// CHECK: ERROR: LeakSanitizer: detected memory leaks
// CHECK-NOT: 1717 byte
// CHECK: Direct leak of 4242 byte(s) in 1 object(s) allocated from:
// CHECK: in leak_it {{.*}}san_leak.c
// CHECK-NOT: 1717 byte
// CHECK: SUMMARY: {{.*}}Sanitizer: 4242 byte(s) leaked in 1 allocation(s).
