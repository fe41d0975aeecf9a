// Arrays and structs of pointers on the stack, and a linked list whose
// nodes are locals of successive frames, survive stack copies: every stored
// pointer is rewritten, every integer next to them is left alone.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

struct node {
  struct node *next;
  long value;
  int *cell;
};

struct pair {
  int *first;
  long tag;
  int *second;
};

__attribute__((noinline)) static long build(int depth, struct node *prev,
                                            int *cells) {
  struct node here = {prev, depth, &cells[depth % 8]};
  if (depth == 0) {
    cs_burn(3000); // grow while the whole list lives on the stack
    long total = 0;
    for (struct node *n = &here; n; n = n->next)
      total += n->value * 1000 + *n->cell;
    return total;
  }
  return build(depth - 1, &here, cells);
}

int main(void) {
  int a = 1, b = 2, c = 3;
  int *ptrs[3] = {&a, &b, &c};
  struct pair p = {&a, 7, &c};
  int cells[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  unsigned long before = cs_copies();
  long total = build(200, 0, cells);
  cs_burn(4000);
  REQUIRE(cs_copies() > before);
  printf("list %ld\n", total);
  printf("array %d %d %d\n", *ptrs[0], *ptrs[1], *ptrs[2]);
  printf("pair %d %ld %d\n", *p.first, p.tag, *p.second);
  *ptrs[1] = 20;
  printf("b %d\n", b);
  return 0;
}
// CHECK: list 20100700
// CHECK: array 1 2 3
// CHECK: pair 1 7 3
// CHECK: b 20
