// C++ exceptions thrown through 50 frames, each with a destructor and a
// pointer to its caller's local, across stack copies: destructors that grow
// the stack while the exception is in flight, handlers that read locals
// through pointers, rethrow, and exceptions thrown by foreign code
// (std::vector::at, operator new).
// RUN: %plain_cxx %s -o %t.plain && %t.plain > %t.expected
// RUN: %cxx %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.hpp"

#include <stdexcept>
#include <string>
#include <vector>

static int destroyed;

struct Guard {
  int *counter;
  int depth;
  explicit Guard(int *c, int d) : counter(c), depth(d) {}
  ~Guard() {
    if (depth % 10 == 0)
      cs_burn(200); // the stack grows while the exception is in flight
    ++*counter;
    ++destroyed;
  }
};

__attribute__((noinline)) static int dive(int depth, int *counter,
                                          const int *anchor) {
  char frame[64];
  frame[0] = static_cast<char>(depth);
  CS_KEEP(frame);
  Guard g(counter, depth);
  if (depth == 0)
    throw std::runtime_error("bottom " + std::to_string(*anchor));
  return dive(depth - 1, counter, anchor) + frame[0];
}

__attribute__((noinline)) static int rethrow_through(int depth, int *counter,
                                                     const int *anchor) {
  try {
    return dive(depth, counter, anchor);
  } catch (const std::runtime_error &) {
    cs_burn(500); // grow inside the handler, then rethrow
    throw;
  }
}

int main() {
  int anchor = 7;
  for (int round = 0; round < 3; ++round) {
    int counter = 0;
    try {
      rethrow_through(50, &counter, &anchor);
    } catch (const std::runtime_error &e) {
      std::printf("round %d: caught '%s' after %d destructors\n", round,
                  e.what(), counter);
    }
  }
  std::vector<int> v(3, 1);
  try {
    cs_burn(300);
    v.at(10) = 1; // thrown by libstdc++, on the thread's stack
  } catch (const std::out_of_range &) {
    std::printf("out_of_range caught, anchor %d\n", anchor);
  }
  try {
    throw 42;
  } catch (int x) {
    std::printf("int %d\n", x + cs_burn(100) * 0);
  }
  std::printf("destroyed %d\n", destroyed);
  return 0;
}
// CHECK: round 0: caught 'bottom 7' after 51 destructors
// CHECK: round 2: caught 'bottom 7' after 51 destructors
// CHECK: out_of_range caught, anchor 7
// CHECK: int 42
// CHECK: destroyed 153
