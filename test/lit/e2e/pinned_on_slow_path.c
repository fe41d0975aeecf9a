// A local whose address escapes only on a rare path is pinned only there:
// the function allocates its pinned block in the block that dominates the
// local's uses, not at entry, and every return gives back what its own path
// took. Checked: the values survive stack moves while pinned, the pinned
// area does not leak over a million calls that take the block on some
// paths and not on others (small and chunk-sized blocks), and returns on
// both kinds of paths.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

static long *volatile kept;
__attribute__((noinline)) static void keep(long *p) { kept = p; }

// x is pinned on the slow path only; the return is shared with the fast
// path, which took nothing.
__attribute__((noinline)) static long maybe(long n, int slow) {
  long r = n;
  if (slow) {
    long x[32] = {n};
    keep(x);
    cs_burn(20); // the stack grows or moves while x is pinned
    *kept += 1;
    r = x[0];
  }
  return r;
}

// A block larger than a pinned chunk, on one path of three, with a return
// of its own on that path.
__attribute__((noinline)) static long big(long n) {
  if (n % 3 == 1) {
    long buf[40000];
    buf[0] = n;
    buf[39999] = 2 * n;
    keep(buf);
    if (n % 2)
      return kept[0] + kept[39999];
    cs_burn(5);
    return kept[0] + kept[39999] + 1;
  }
  return n;
}

static void task(void *arg) {
  (void)arg;
  long sum = 0;
  for (long i = 0; i < 1000000; i++)
    sum += maybe(i, (i & 63) == 0);
  printf("maybe %ld\n", sum);
  sum = 0;
  for (long i = 0; i < 30000; i++)
    sum += big(i);
  printf("big %ld\n", sum);
}

int main(void) {
  copystack_stats before, after;
  copystack_get_stats(&before);
  cs_fresh_task(task, 0);
  copystack_get_stats(&after);
  printf("grew: %s\n", cs_copies() > 0 ? "yes" : "no");
  printf("pinned area bounded: %s\n",
         after.pinned_sys < (1u << 20) ? "yes" : "no");
  return 0;
}
// CHECK: maybe 499999515625
// CHECK: big 749980000
// CHECK: grew: yes
// CHECK: pinned area bounded: yes
