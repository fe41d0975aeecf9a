// glibc's malloc family, pthread_mutex_lock/unlock and strcspn/strspn/
// strpbrk are called in place on the task stack when the stack has
// COPYSTACK_IN_PLACE_ROOM bytes to spare, and through the foreign-call
// trampoline otherwise; with another allocator bound to the malloc names
// (here glibc's own malloc-debug library, preloaded) those stay foreign
// calls, and only those. Checked from inside malloc with gdb (frame #1 is
// the task's function itself in place, the trampoline's switch back to the
// task's stack when foreign, a signal frame to gdb without copystack's
// script),
// and by results on both paths in every mode. A mutex held by a parked
// task: the other task's trylock in place fails and it parks in the
// runtime's pthread_mutex_lock, so with one worker the holder still runs
// and unlocks. The mutex group's names are the runtime's own interposers
// (sched/pthread_sync.cc), called in place as glibc's were.
// RUN: %cc %s -o %t
// Under TSan, which binds the allocator's and the string functions' names
// itself, those stay foreign calls, and so do the mutex group's (the
// runtime's there too, but a lock made as an in-place trylock would be a
// try-lock to TSan, which checks no lock order for those): groups 0.
// RUN: %run %t | FileCheck %s --check-prefixes=RESULTS,%if tsan %{TSAN%} %else %{PLAIN%}
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s --check-prefixes=RESULTS,%if tsan %{TSAN%} %else %{PLAIN%}
// RUN: env LD_PRELOAD=libc_malloc_debug.so.0 %run %t | FileCheck %s --check-prefixes=RESULTS,%if tsan %{TSAN%} %else %{PRELOADED%}
// A debugger's stop is a long time slice to the monitor, whose standing
// preemption request (limit -2) fails the room test and sends the call
// foreign: the gdb runs that expect it in place run without preemption.
// RUN: %if gdb && normal %{ env COPYSTACK_PREEMPT=0 gdb -batch -nx -ex "break main" -ex run -ex "break __libc_malloc if bytes == 77777" -ex continue -ex "bt 2" -ex continue -ex "bt 2" -ex kill %t 2>&1 | FileCheck %s --check-prefix=GDB %}
// In stress and verify modes the limit (~0) is above every stack pointer:
// the room test fails and even the roomy task's calls are foreign.
// RUN: %if gdb && (stress || verify) %{ %run gdb -batch -nx -ex "break main" -ex run -ex "break __libc_malloc if bytes == 77777" -ex continue -ex "bt 2" -ex continue -ex "bt 2" -ex kill %t 2>&1 | FileCheck %s --check-prefix=GDB-FOREIGN %}
#include "Inputs/check.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

extern int copystack_libc_flags asm("__copystack_libc_in_place");

static void *volatile seen; // the allocations escape: not folded away
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long shared;

__attribute__((noinline)) static long use_libc(int n) {
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
  pthread_mutex_lock(&mu);
  shared += r;
  pthread_mutex_unlock(&mu);
  const char *s = "key=value;rest";
  r += (long)strcspn(s, "=;") * 100;          // 3
  r += (long)strspn(s, "aeky") * 10000;       // 3
  r += (long)(strpbrk(s, ";") - s) * 1000000; // 9
  return r;
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void roomy(void *arg) {
  (void)arg;
  printf("roomy: %ld\n", use_libc(5));
  copystack_waitgroup_done(&wg);
}

// A fresh 2 KiB stack (learned and adaptive start sizes off): at most 1,120
// bytes above the limit, less than the room these calls need.
static void cramped(void *arg) {
  (void)arg;
  printf("cramped: %ld\n", use_libc(7));
}

static void holder(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  copystack_sleep_ns(20 * 1000 * 1000); // parked, holding the mutex
  shared += 1000;
  pthread_mutex_unlock(&mu);
  copystack_waitgroup_done(&wg);
}

static void waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu); // held: trylock fails, the lock parks
  shared += 1;
  pthread_mutex_unlock(&mu);
  copystack_waitgroup_done(&wg);
}

int main(void) {
  printf("groups: %d\n", copystack_libc_flags & (COPYSTACK_IN_PLACE_ALLOC |
                                                 COPYSTACK_IN_PLACE_MUTEX |
                                                 COPYSTACK_IN_PLACE_SCAN));
  copystack_waitgroup_add(&wg, 1);
  copystack_go_sized(roomy, 0, 256 * 1024);
  copystack_waitgroup_wait(&wg);
  copystack_waitgroup_add(&wg, 2);
  copystack_go_sized(holder, 0, 64 * 1024);
  copystack_sleep_ns(5 * 1000 * 1000);
  copystack_go_sized(waiter, 0, 64 * 1024);
  copystack_waitgroup_wait(&wg);
  printf("shared: %ld\n", shared);
  cs_fixed_start(2048);
  copystack_run(cramped, 0);
  return 0;
}
// PLAIN: groups: 7
// PRELOADED: groups: 6
// TSAN: groups: 0
// RESULTS: roomy: 9030305
// RESULTS-NEXT: shared: 1006
// RESULTS-NEXT: cramped: 9030307
// GDB: #1 {{.*}}use_libc
// GDB: #1 <signal handler called>
// GDB-FOREIGN: #1 <signal handler called>
// GDB-FOREIGN: #1 <signal handler called>
// GDB-FOREIGN-NOT: #1 {{.*}}use_libc
