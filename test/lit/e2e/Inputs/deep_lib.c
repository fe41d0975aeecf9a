/* An instrumented shared library: recursion that grows the caller's stack
 * while frames of the library, with pointers into the stack, are live. */
#include <copystack/copystack.h>

#define KEEP(buf) __asm__ volatile("" : : "r"(buf) : "memory")

/* -DDEEP_LIB_PREFIX=p_ names the functions p_lib_depth_sum...: a second
 * copy of the library in one process. */
#ifndef DEEP_LIB_PREFIX
#define DEEP_LIB_PREFIX
#endif
#define DEEP_CAT2(a, b) a##b
#define DEEP_CAT(a, b) DEEP_CAT2(a, b)
#define lib_depth_sum DEEP_CAT(DEEP_LIB_PREFIX, lib_depth_sum)
#define lib_call_back DEEP_CAT(DEEP_LIB_PREFIX, lib_call_back)

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
