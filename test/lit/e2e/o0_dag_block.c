// Found in pugixml's test suite (debug build, -O0) under stress + verify:
// in a block that also converts an unsigned 64-bit integer to double (which
// FastISel cannot select), a local's address is passed to an initializer
// call and then to a call that moves the stack. FastISel gave the whole
// block before the conversion to SelectionDAG, which computed &c once; the
// fast register allocator spilled it across the initializer to a slot no
// map described, and the second call read the stack the task had left.
// At -O0 every call that may move the stack now ends its block.
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"

struct Ctx {
  unsigned long pos, size;
};

__attribute__((noinline)) static void init(struct Ctx *c, unsigned long i) {
  c->pos = i;
  c->size = 3;
}

__attribute__((noinline)) static double eval(const struct Ctx *c) {
  cs_burn(40);
  return (double)(c->pos % c->size);
}

int main(void) {
  unsigned long hits = 0;
  for (unsigned long i = 0; i < 12; ++i) {
    struct Ctx c;
    init(&c, i);
    if (eval(&c) == (double)(i % 3))
      hits++;
  }
  printf("hits %lu\n", hits);
  return 0;
}
// CHECK: hits 12
