// C++ built with -fsanitize=undefined (which includes -fsanitize=function)
// runs tasks: indirect calls check the type word in copystack's prefix, so
// instrumented functions are neither mistaken for foreign code nor reported;
// a call through a pointer of the wrong type is reported, from a task.
// RUN: %cxx -fsanitize=undefined %s -o %t
// RUN: %run %t 2>&1 | FileCheck %s
#include "Inputs/check.h"
#include <copystack/copystack.hpp>

#include <functional>
#include <string>

static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
static void other(long) {}

__attribute__((noinline)) static int apply(int (*f)(int, int), int n) {
  char frame[200];
  CS_KEEP(frame);
  if (n > 0)
    return apply(f, n - 1) + f(1, 1) - 2;
  return f(n + 3, 4);
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  copystack::Chan<int> c(0);
  copystack::WaitGroup wg;
  int (*volatile ops[2])(int, int) = {add, mul};
  for (int i = 0; i < 4; i++)
    wg.go([i, c, &ops]() mutable {
      std::function<int(int)> f = [&](int x) { return apply(ops[i & 1], x); };
      c.send(f(40));
    });
  int sum = 0;
  for (int i = 0; i < 4; i++)
    sum += *c.recv();
  wg.wait();
  printf("sum %d\n", sum);
  wg.go([]() {
    auto wrong = reinterpret_cast<int (*)(int, int)>(
        reinterpret_cast<void (*)()>(other));
    int (*volatile w)(int, int) = wrong;
    w(1, 2);
  });
  wg.wait();
  printf("done\n");
  return 0;
}
// CHECK: sum -42
// CHECK: runtime error: call to function other(long) through pointer to incorrect function type 'int (*)(int, int)'
// CHECK: done
// REQUIRES: san-undefined
