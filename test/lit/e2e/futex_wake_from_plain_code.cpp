// A futex wake made by code built without the plugin ends a task's wait:
// a library's std::atomic<int>::notify_all reaches the kernel through the
// C library's syscall(), which the runtime interposes (io.cc), and wakes
// tasks parked on the word as well as threads. Without it the task would
// wait forever. Under TSan too (it does not intercept syscall()).
// RUN: %plain_cxx -Wno-unused-command-line-argument -std=c++20 -c %S/Inputs/plain_notify.cpp -o %t.o
// RUN: %cxx -std=c++20 %s %t.o -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.hpp"

#include <atomic>
#include <copystack/copystack.hpp>

void plain_store_and_notify(std::atomic<int> *word, int value);

int main() {
  std::atomic<int> word{0};
  copystack::WaitGroup wg;
  wg.add(3);
  for (int i = 0; i < 3; i++)
    copystack::go([&] {
      word.wait(0);
      wg.done();
    });
  copystack_sleep_ns(20 * 1000 * 1000); // all three parked
  plain_store_and_notify(&word, 1);
  wg.wait();
  printf("woken: %d\n", word.load());
  return 0;
}
// CHECK: woken: 1
