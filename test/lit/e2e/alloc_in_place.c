// glibc's malloc, free, calloc and realloc are called in place on the task
// stack when the stack has COPYSTACK_ALLOC_ROOM bytes to spare, and
// through the foreign-call trampoline otherwise; with another allocator
// bound to those names (here glibc's own malloc-debug library, preloaded)
// every call is a foreign call. Checked from inside malloc with gdb: frame
// #1 is the task's function itself (in place) or the generated thunk
// (foreign), and by the results on both paths in every mode.
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: env LD_PRELOAD=libc_malloc_debug.so.0 %run %t | FileCheck %s --check-prefix=PRELOADED
// RUN: %if gdb && normal %{ gdb -batch -nx -ex "break main" -ex run -ex "break __libc_malloc if bytes == 77777" -ex continue -ex "bt 2" -ex continue -ex "bt 2" -ex kill %t 2>&1 | FileCheck %s --check-prefix=GDB %}
#include "Inputs/check.h"
#include <stdlib.h>
#include <string.h>

extern int copystack_alloc_flag asm("__copystack_alloc_in_place");

static void *volatile seen; // the allocations escape: not folded away

__attribute__((noinline)) static long use_heap(int n) {
  char *p = malloc(77777);
  if (!p)
    return -1;
  seen = p;
  memset(p, n, 77777);
  long *q = calloc(n + 1, sizeof(long));
  seen = q;
  q = realloc(q, (n + 100) * sizeof(long));
  seen = q;
  q[n] = p[76543];
  long r = q[n];
  free(q);
  free(p);
  return r;
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void roomy(void *arg) {
  (void)arg;
  printf("roomy: %ld\n", use_heap(5));
  copystack_waitgroup_done(&wg);
}

// A fresh 2 KiB stack (learned and adaptive start sizes off): at most 1,120
// bytes above the limit, less than the room the allocator needs.
static void cramped(void *arg) {
  (void)arg;
  printf("cramped: %ld\n", use_heap(7));
}

int main(void) {
  printf("in place allowed: %d\n", copystack_alloc_flag);
  copystack_waitgroup_add(&wg, 1);
  copystack_go_sized(roomy, 0, 256 * 1024);
  copystack_waitgroup_wait(&wg);
  copystack_policy p;
  copystack_get_policy(&p);
  p.learn_start = 0;
  p.adaptive_start = 0;
  copystack_set_policy(&p);
  copystack_set_start_stack(2048);
  copystack_run(cramped, 0);
  return 0;
}
// CHECK: in place allowed: 1
// CHECK-NEXT: roomy: 5
// CHECK-NEXT: cramped: 7
// PRELOADED: in place allowed: 0
// PRELOADED-NEXT: roomy: 5
// PRELOADED-NEXT: cramped: 7
// GDB: #1 {{.*}}use_heap
// GDB: #1 {{.*}}__copystack.thunk.{{[0-9]+}}.malloc
