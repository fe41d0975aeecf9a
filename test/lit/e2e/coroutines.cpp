// C++20 coroutines inside a task: a generator whose frame (on the heap)
// holds a reference to a local of the task's stack, resumed with stack
// copies between resumptions and inside the coroutine body.
// RUN: %plain_cxx -std=c++20 %s -o %t.plain && %t.plain > %t.expected
// RUN: %cxx -std=c++20 %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.hpp"

#include <coroutine>
#include <utility>

struct Generator {
  struct promise_type {
    long value = 0;
    Generator get_return_object() {
      return Generator{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(long v) {
      value = v;
      return {};
    }
    void return_void() {}
    void unhandled_exception() { std::abort(); }
  };
  std::coroutine_handle<promise_type> h;
  explicit Generator(std::coroutine_handle<promise_type> h) : h(h) {}
  Generator(Generator &&o) : h(std::exchange(o.h, {})) {}
  ~Generator() {
    if (h)
      h.destroy();
  }
  bool next() {
    h.resume();
    return !h.done();
  }
  long value() const { return h.promise().value; }
};

Generator counter(const int &step, int limit) {
  for (int i = 0; i < limit; ++i) {
    cs_burn(50 * (i % 4)); // grow inside the coroutine
    co_yield static_cast<long>(i) * step;
  }
}

__attribute__((noinline)) static long drive(int depth) {
  int step = 3; // the coroutine keeps a reference to this local
  Generator g = counter(step, 10);
  long sum = 0;
  while (g.next()) {
    cs_burn(depth); // and the stack moves between resumptions
    sum += g.value();
  }
  return sum;
}

int main() {
  std::printf("sum %ld\n", drive(300));
  return 0;
}
// CHECK: sum 135
