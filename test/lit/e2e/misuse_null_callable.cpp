// The C++ API: starting a task with an empty std::function or a null
// function pointer, and closing a nil channel, stop the program with a
// message naming the call.
// RUN: %cxx %s -o %t
// RUN: %exits 2 %run %t function 2>&1 | FileCheck %s --check-prefix=FUNCTION
// RUN: %exits 2 %run %t pointer 2>&1 | FileCheck %s --check-prefix=POINTER
// RUN: %exits 2 %run %t close 2>&1 | FileCheck %s --check-prefix=CLOSE
#include <copystack/copystack.hpp>
#include <cstdio>
#include <cstring>
#include <functional>

int main(int argc, char **argv) {
  if (argc != 2)
    return 1;
  if (!std::strcmp(argv[1], "function")) {
    std::function<void()> empty;
    copystack::go(empty);
  } else if (!std::strcmp(argv[1], "pointer")) {
    void (*fn)(int) = nullptr;
    copystack::go(fn, 1);
  } else {
    copystack::Chan<int> nil;
    nil.close();
  }
  std::printf("not stopped\n");
  return 0;
}
// FUNCTION: copystack: fatal: copystack::go: the callable is empty (a null function pointer or an empty std::function)
// POINTER: copystack: fatal: copystack::go: the callable is empty
// CLOSE: copystack: fatal: copystack::Chan::close: close of nil channel
