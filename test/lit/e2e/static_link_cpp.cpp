// C++ in -static and -static-pie executables: libstdc++.a defines
// std::thread::_M_start_thread as the runtime did (the link failed with a
// multiple definition), and the drivers now wrap it instead
// (runtime/src/platform/interpose.h). std::thread's and std::async's
// callables run as tasks and grow past their threads' stacks, exceptions
// unwind through grown stacks (the unwinder finds the tables of a static
// executable), and thread_locals stay each thread's own, as in a dynamic
// executable (thread_stacks.cpp).
// ThreadSanitizer's runtime cannot be linked statically (it needs _DYNAMIC).
// UNSUPPORTED: tsan
// RUN: %cxx -static %s -o %t.static
// RUN: %run %t.static | FileCheck %s
// RUN: %cxx -static-pie %s -o %t.pie
// RUN: %run %t.pie | FileCheck %s
#include "Inputs/check.h"
#include <cstring>
#include <future>
#include <stdexcept>
#include <sys/auxv.h>
#include <thread>

namespace {

__attribute__((noinline)) long deep(long n) {
  char pad[160];
  std::memset(pad, static_cast<int>(n), sizeof pad);
  CS_KEEP(pad);
  if (n == 0)
    return 0;
  return deep(n - 1) + (pad[7] & 1);
}

__attribute__((noinline)) long deep_then_throw(long n) {
  char pad[160];
  std::memset(pad, static_cast<int>(n), sizeof pad);
  CS_KEEP(pad);
  if (n == 0)
    throw std::runtime_error("from the bottom");
  return deep_then_throw(n - 1) + (pad[7] & 1);
}

bool in_task() {
  copystack_stack_info i;
  return copystack_current_stack(&i) == 0;
}

thread_local int tls_value = 5;

} // namespace

int main() {
  std::printf("interpreter: %s\n", getauxval(AT_BASE) == 0 ? "none" : "ld.so");

  bool task = false;
  long r = 0;
  std::thread t([&] {
    task = in_task();
    tls_value = 6;
    r = deep(3000); // about 500 KiB of frames
  });
  t.join();
  std::printf("std::thread: in a task %s, result %ld, main's tls %d\n",
              task ? "yes" : "no", r, tls_value);

  auto f = std::async(std::launch::async, [] {
    return std::make_pair(in_task(), deep(2000));
  });
  auto [async_task, async_r] = f.get();
  std::printf("std::async: in a task %s, result %ld\n",
              async_task ? "yes" : "no", async_r);

  try {
    deep_then_throw(1500);
  } catch (const std::exception &e) {
    std::printf("caught: %s, stacks grew: %s\n", e.what(),
                cs_growths() > 0 ? "yes" : "no");
  }
  return 0;
}
// CHECK: interpreter: none
// CHECK-NEXT: std::thread: in a task yes, result 1500, main's tls 5
// CHECK-NEXT: std::async: in a task yes, result 1000
// CHECK-NEXT: caught: from the bottom, stacks grew: yes
