// C++ shapes of an escaping by-value argument (byval_escaping.c has the C
// ones): a trivially copyable lambda passed by value and called through a
// std::function that refers to it (fmt's nested_formatter test), and a
// writer object keeping a reference to a by-value std::tm (fmt's tm_writer).
// Each runs on a fresh 2 KiB task so that the stack grows in normal mode.
// RUN: %plain_cxx %s -o %t.plain && %t.plain > %t.expected
// RUN: %cxx %s -o %t
// RUN: %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include <cstdio>
#include <ctime>
#include <functional>

namespace {

template <typename F>
__attribute__((noinline)) long call_through_function(F f) {
  std::function<long()> g = [&f] { return f(); };
  cs_burn(300);
  return g() + g();
}

struct writer {
  const std::tm &tm;
  long out = 0;
  __attribute__((noinline)) void year() { out += tm.tm_year + 1900; }
  __attribute__((noinline)) void day() { out += tm.tm_mday; }
};

writer *volatile kept;
__attribute__((noinline)) long format_tm(std::tm t) {
  writer w{t};
  kept = &w;
  cs_burn(300);
  w.year();
  t.tm_mday = 30;
  cs_burn(300);
  kept->day();
  return w.out;
}

long result;

} // namespace

int main() {
  cs_fresh_task(
      [](void *) {
        long a = 1, b = 2, c = 3, d = 4;
        result = call_through_function(
            [a, b, c, d] { return a * 1000 + b * 100 + c * 10 + d; });
      },
      nullptr);
  std::printf("lambda by value: %ld\n", result);
  cs_fresh_task(
      [](void *) {
        std::tm t{};
        t.tm_year = 126;
        t.tm_mday = 1;
        result = format_tm(t);
      },
      nullptr);
  std::printf("tm writer: %ld\n", result);
  return 0;
}
// CHECK: lambda by value: 2468
// CHECK: tm writer: 2056
