/* An instrumented shared library: recursion that grows the caller's stack
 * while frames of the library, with pointers into the stack, are live. */
#include <copystack/copystack.h>

#define KEEP(buf) __asm__ volatile("" : : "r"(buf) : "memory")

int lib_depth_sum(int depth, int *acc) {
  char frame[128];
  frame[0] = (char)depth;
  KEEP(frame);
  if (depth == 0)
    return *acc;
  *acc += 1;
  int r = lib_depth_sum(depth - 1, acc);
  return r + (frame[0] == (char)depth ? 0 : 1000);
}

/* Calls back into the executable: frames of both objects interleave. */
int lib_call_back(int (*fn)(int *), int *cell) {
  char frame[64];
  KEEP(frame);
  return fn(cell) + frame[0] * 0;
}
