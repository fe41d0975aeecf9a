// std::call_once keeps its callable in two thread-locals of libstdc++ from
// before pthread_once until after. The runtime runs inside the program's
// calls (every growth, and in stress and verify modes every call), so it
// must never touch them: a call_once of its own on the growth path once
// cleared them under the program's, whose pthread_once then called a null
// function. Here the callable and the code around it grow the stack, in
// main's task, on a thread, and under std::async.
// RUN: %cxx %s -o %t -lpthread
// RUN: %run %t | FileCheck %s
#include "Inputs/check.hpp"
#include <future>
#include <mutex>
#include <thread>

namespace {
std::once_flag flags[3];
int runs[3];

void once(int i) {
  cs_burn(50);
  std::call_once(flags[i], [i] {
    cs_burn(100);
    ++runs[i];
  });
  std::call_once(flags[i], [i] { ++runs[i]; });
}
} // namespace

int main() {
  once(0);
  std::thread t([] { once(1); });
  t.join();
  std::async(std::launch::async, [] { once(2); }).get();
  std::printf("runs: %d %d %d\n", runs[0], runs[1], runs[2]);
  return 0;
}
// CHECK: runs: 1 1 1
