// Standard containers whose heap parts point back at headers on the stack
// (std::map's nodes at its header, std::list's at its sentinel), strings
// whose small buffer lives inside themselves, vectors of pointers to
// locals, and an unordered_map: all used on both sides of stack copies.
// RUN: %plain_cxx %s -o %t.plain && %t.plain > %t.expected
// RUN: %cxx %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.hpp"

#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

__attribute__((noinline)) static long work(int depth) {
  std::map<int, std::string> m;
  std::list<int> l;
  std::string small = "sso";          // fits the small buffer
  std::string big(100, 'x');          // heap
  int a = 1, b = 2, c = 3;
  std::vector<int *> ptrs{&a, &b, &c};
  std::unordered_map<std::string, int> u;
  for (int i = 0; i < 20; ++i) {
    m[i] = std::to_string(i * i);
    l.push_back(i);
    u[std::to_string(i)] = i;
    if (i % 5 == 0)
      cs_burn(depth);                 // copy the stack under all of them
  }
  small += "!";
  *ptrs[1] += 40;
  long sum = 0;
  for (auto &kv : m)
    sum += kv.first + static_cast<long>(kv.second.size());
  for (int x : l)
    sum += x;
  for (int *p : ptrs)
    sum += *p;
  sum += u["7"] + static_cast<long>(small.size() + big.size());
  if (depth > 0)
    sum += work(depth / 2);
  std::printf("depth %d: %s %c %zu %ld\n", depth, small.c_str(), big[50],
              m.size(), sum);
  return sum;
}

int main() {
  long total = work(400);
  std::printf("total %ld\n", total);
  // Under copystack the stack must have moved under the containers.
  if (copystack_in_task() && cs_copies() == 0) {
    std::fprintf(stderr, "FAILED: no stack copy\n");
    return 1;
  }
  return 0;
}
// CHECK: depth 400: sso! x 20
// CHECK: total
