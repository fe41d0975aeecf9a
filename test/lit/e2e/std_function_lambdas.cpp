// std::function holding lambdas that capture locals by reference, stored,
// passed down and called after the stack moved; a virtual interface called
// through a base pointer into instrumented overrides that grow the stack.
// RUN: %plain_cxx %s -o %t.plain && %t.plain > %t.expected
// RUN: %cxx %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.hpp"

#include <functional>
#include <memory>
#include <vector>

struct Visitor {
  virtual ~Visitor() = default;
  virtual int visit(int depth) = 0;
};

struct Deep : Visitor {
  int *seen;
  explicit Deep(int *s) : seen(s) {}
  int visit(int depth) override {
    char frame[96];
    frame[0] = 1;
    CS_KEEP(frame);
    ++*seen;
    return depth == 0 ? 0 : visit(depth - 1) + frame[0];
  }
};

__attribute__((noinline)) static int call_after_growth(const std::function<int(int)> &f,
                                           int depth) {
  cs_burn(depth);
  return f(depth);
}

int main() {
  int counter = 0;
  long sum = 0;
  std::function<int(int)> inc = [&](int d) {
    counter += d;
    sum += counter;
    return counter;
  };
  std::vector<std::function<void()>> later;
  for (int i = 0; i < 5; ++i)
    later.push_back([&, i] { sum += i * counter; });
  for (int d = 100; d <= 500; d += 100)
    call_after_growth(inc, d);
  for (auto &f : later)
    f();
  int seen = 0;
  std::unique_ptr<Visitor> v = std::make_unique<Deep>(&seen);
  int r = v->visit(800);
  std::printf("counter %d sum %ld visit %d seen %d\n", counter, sum, r, seen);
  return 0;
}
// CHECK: counter 1500 sum 18500 visit 800 seen 801
