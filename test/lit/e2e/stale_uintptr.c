// Precise semantics, as in Go: a pointer to a local is rewritten at every
// copy and keeps reading 42; an integer holding a copy of the same address
// (its bytes copied one by one, not cast) is never changed and keeps
// pointing into the stack the task left nine copies ago.
//
// Everything the test compares stays in memory (volatile, copied in place):
// an object whose address goes to a callee is scanned conservatively, and a
// callee-saved register carries no type, so the runtime range-checks both.
// The numbers of copies are those of a plain build's frames; UBSan's
// checks make -O0 frames larger.
// UNSUPPORTED: ubsan && O0
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"
#include <stdint.h>

#include "Inputs/stale.h"

int main(void) {
  int anchor = 42;
  int *volatile p = &anchor;
  volatile uint64_t stale = 0;
  COPY_BITS(stale, p);

  copystack_stack_info first;
  REQUIRE(copystack_current_stack(&first) == 0);
  volatile uint64_t old_lo = first.lo, old_hi = first.hi;
  REQUIRE(stale >= old_lo && stale < old_hi);

  cs_burn(4096);
  REQUIRE(cs_growths() == 9);

  volatile uint64_t now = 0;
  COPY_BITS(now, p);
  printf("pointer left the first stack: %s\n",
         now < old_lo || now >= old_hi ? "yes" : "no");
  printf("reads: %d\n", *p);
  printf("stale still points into the first stack: %s\n",
         stale >= old_lo && stale < old_hi ? "yes" : "no");
  return 0;
}
// CHECK: pointer left the first stack: yes
// CHECK: reads: 42
// CHECK: stale still points into the first stack: yes
