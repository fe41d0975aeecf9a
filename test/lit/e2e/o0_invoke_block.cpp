// Found in pugixml's test suite (debug build, -O0) under stress + verify:
// a local's address used by a call, then again by an invoke later in the
// same block (a local with a destructor is live, so the later call is an
// invoke). FastISel cannot select an invoke and gives the whole block to
// SelectionDAG, which computes &c once; the fast register allocator then
// spilled that address across the constructor call to a slot no map
// described, and after the stack moved eval() wrote to the stack the task
// had left. The pass now gives such a terminator a block of its own.
// RUN: %plain_cxx %s -o %t.plain && %t.plain > %t.expected
// RUN: %cxx %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.hpp"

#include <cstdio>

namespace {
struct Ctx {
  long pos, size;
};
struct Holder {
  long x;
  Holder();
  ~Holder();
};
__attribute__((noinline)) Holder::Holder() : x(cs_burn(60)) {}
__attribute__((noinline)) Holder::~Holder() { cs_burn(10); }
__attribute__((noinline)) void init(Ctx &c) {
  c.pos = 1;
  c.size = 2;
}
__attribute__((noinline)) long eval(Ctx &c) {
  cs_burn(30);
  c.pos += 10;
  return c.pos + c.size;
}
__attribute__((noinline)) long twice(Ctx &a, Ctx &b) {
  a.pos += b.size;
  return a.pos;
}
} // namespace

int main() {
  Ctx c, d;
  init(c);
  init(d);
  Holder h;         // may move the stack
  long r = eval(c); // an invoke: h's destructor runs if it throws
  long t = twice(c, d);
  std::printf("%ld %ld %ld %ld\n", r, c.pos, t, d.pos);
  return 0;
}
// CHECK: 13 13 13 1
