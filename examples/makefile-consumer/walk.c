/* libwalk: an instrumented shared library. Its frames grow the stack of the
 * task that calls it; it links libcopystack.so and uses the program's
 * runtime. */
#include "walk.h"

#ifndef __COPYSTACK__
#error "compile with $(pkg-config --cflags copystack-shared)"
#endif

long walk(int depth) {
  char frame[256];
  frame[depth % 256] = (char)(depth % 100);
  /* The frame's address escapes: the optimizer keeps it whole, and it must
   * read the byte back after the call, from the stack's new place. */
  __asm__ volatile("" : : "r"(frame) : "memory");
  if (depth == 0)
    return 0;
  return walk(depth - 1) + frame[depth % 256];
}

long walk_expected(int depth) {
  long sum = 0;
  for (int d = 1; d <= depth; d++)
    sum += d % 100;
  return sum;
}
