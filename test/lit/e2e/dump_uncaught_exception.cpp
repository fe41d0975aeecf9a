// An exception that leaves a task's function is a fatal error, like a
// panic in a goroutine: the message names the exception, the dump shows
// where it was thrown, exit status 2.
// RUN: %cxx %s -o %t
// RUN: %exits 2 %run %t 2>&1 | FileCheck %s
#include "Inputs/check.hpp"
#include <copystack/copystack.hpp>
#include <stdexcept>

__attribute__((noinline)) static void fail(int n) {
  if (n > 0)
    throw std::runtime_error("boom");
}

int main() {
  copystack::Chan<int> done(0);
  copystack::go([done]() mutable {
    fail(1);
    done.send(1);
  });
  done.recv();
  return 0;
}
// CHECK: copystack: fatal: uncaught exception std::runtime_error: boom
// CHECK: task {{[0-9]+}} [running]:
// CHECK: fail(int) at {{.*}}dump_uncaught_exception.cpp:12
// CHECK: created by main at {{.*}}dump_uncaught_exception.cpp:17
