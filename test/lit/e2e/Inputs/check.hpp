// C++ helpers shared by the end-to-end tests.
#ifndef COPYSTACK_TEST_CHECK_HPP
#define COPYSTACK_TEST_CHECK_HPP

#include <copystack/copystack.h>

#include <cstdio>
#include <cstdlib>

#define CS_KEEP(buf) __asm__ volatile("" : : "r"(buf) : "memory")

// Grows the stack of the calling task by about depth * 160 bytes.
__attribute__((noinline)) inline int cs_burn(int depth) {
  char frame[128];
  frame[0] = static_cast<char>(depth);
  CS_KEEP(frame);
  if (depth <= 0)
    return frame[0];
  return cs_burn(depth - 1) + frame[0];
}

inline unsigned long cs_copies() {
  copystack_stats s;
  copystack_get_stats(&s);
  return static_cast<unsigned long>(s.growths + s.moves);
}

#endif
