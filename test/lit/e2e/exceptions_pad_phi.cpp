// A pointer to the caller's local reaches a landing pad shared by two calls
// that may throw, as a phi (found in pugixml's xml_document::load at -O3).
// The pad's phi cannot be reloaded on the unwind edge; the compiler must
// not fail ("Undefined temporary symbol ...frame_escape") and the handler
// must see the relocated pointer after the stack moved under the throw.
// RUN: %plain_cxx %s -o %t.plain && %t.plain > %t.expected
// RUN: %cxx %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include <cstdio>

__attribute__((noinline)) static int grow(int n) {
  volatile char pad[256];
  pad[0] = (char)n;
  return n ? grow(n - 1) + pad[0] : 0;
}
__attribute__((noinline, weak)) void g(int n) {
  grow(20);
  if (n == 1)
    throw 1;
}
__attribute__((noinline, weak)) void h(int n) {
  grow(40);
  if (n == 2)
    throw 2;
}
__attribute__((noinline, weak)) void sink(const int *v) {
  grow(60);
  std::printf("handler sees %d\n", v ? *v : -1);
}

__attribute__((noinline)) int f(int *p, int n) {
  int *q = nullptr;
  try {
    g(n);
    q = p;
    h(n);
  } catch (...) {
    sink(q);
    sink(q);
    return -1;
  }
  return *q;
}

int main() {
  for (int n = 0; n < 3; ++n) {
    int local = 42 + n;
    std::printf("f(%d) -> %d\n", n, f(&local, n));
  }
  return 0;
}
// CHECK: f(0) -> 42
// CHECK: handler sees -1
// CHECK: f(1) -> -1
// CHECK: handler sees 44
// CHECK: f(2) -> -1
