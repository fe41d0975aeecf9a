// A task whose stack is a little short of the in-place room
// (COPYSTACK_IN_PLACE_ROOM above the limit) would make every malloc, free
// and mutex call foreign for its whole life: a stack grows only to what
// its deepest frame needs. Each failed room test is counted, and after
// COPYSTACK_ROOM_MISSES of them the runtime asks for room (abi.h,
// COPYSTACK_ROOM_LIMIT): the next prologue check grows the stack so that
// the frames live have the room below them, once, and the calls run in
// place from then on. In normal mode: one growth, at least 4 KiB of room
// after it, and the stack no bigger than it needs. In stress and verify
// modes (the limit ~0) the room test always fails and no request is made;
// the results are the same in every mode.
// RUN: %cc %s -o %t && %run %t | FileCheck %s --check-prefixes=CHECK,%if normal %{NORMAL%} %else %{MOVING%}
// Under the sanitizers' interceptors the calls are foreign from the start.
// UNSUPPORTED: asan, tsan, ubsan
#include "Inputs/check.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *volatile seen;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static long churn(int i) {
  char *p = malloc(64 + i % 32);
  seen = p;
  memset(p, i, 64);
  long r = (signed char)p[i % 64]; // char is unsigned on AArch64
  free(p);
  pthread_mutex_lock(&mu);
  r += 1;
  pthread_mutex_unlock(&mu);
  return r;
}

static void cramped(void *arg) {
  (void)arg;
  copystack_stack_info before, after;
  REQUIRE(copystack_current_stack(&before) == 0);
  copystack_stats s0, s1;
  copystack_get_stats(&s0);
  long sum = 0;
  for (int i = 0; i < 1000; i++)
    sum += churn(i);
  copystack_get_stats(&s1);
  REQUIRE(copystack_current_stack(&after) == 0);
  printf("sum: %ld\n", sum);
  printf("start: %zu bytes, room %s 4096\n", before.size,
         before.room < 4096 ? "below" : "at least");
  printf("growths: %llu\n", (unsigned long long)(s1.growths - s0.growths));
  printf("room after: %s 4096, size %zu\n",
         after.room < 4096 ? "below" : "at least", after.size);
}

int main(void) {
  cs_fixed_start(2048);
  copystack_run(cramped, 0);
  return 0;
}
// CHECK: sum: 788
// CHECK-NEXT: start: 2048 bytes, room below 4096
// NORMAL-NEXT: growths: 1
// NORMAL-NEXT: room after: at least 4096, size 8192
// MOVING-NEXT: growths: 0
// MOVING-NEXT: room after: below 4096
