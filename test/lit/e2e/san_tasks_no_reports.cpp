// Under AddressSanitizer, ThreadSanitizer and UBSan, tasks report nothing
// that is not there: stacks
// that grow and move (and, in stress mode, move at every call), task
// switches on channels and mutexes between workers, locals passed by
// address to foreign code (snprintf, qsort calling back into instrumented
// code, memcpy), exceptions thrown across grown frames and out of foreign
// code, setjmp/longjmp, stack-use-after-return frames, and parked tasks'
// heap memory found by LeakSanitizer through their stacks.
// RUN: %cxx -fsanitize=address %s -o %t
// RUN: %run %t 2>&1 | FileCheck %s --implicit-check-not=AddressSanitizer --implicit-check-not=LeakSanitizer
// RUN: env COPYSTACK_WORKERS=1 %run %t 2>&1 | FileCheck %s --implicit-check-not=AddressSanitizer --implicit-check-not=LeakSanitizer
// RUN: %if san-thread %{ %cxx -fsanitize=thread -DNO_SETJMP %s -o %t.tsan %}
// RUN: %if san-thread %{ %run %t.tsan 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer %}
// RUN: %cxx -fsanitize=undefined %s -o %t.ubsan
// RUN: %run %t.ubsan 2>&1 | FileCheck %s --implicit-check-not='runtime error'
#include "Inputs/check.h"
#include <copystack/copystack.hpp>

#include <csetjmp>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

static int cmp(const void *a, const void *b) {
  char pad[256]; // an instrumented callback with a frame of its own
  memset(pad, 0, sizeof pad);
  CS_KEEP(pad);
  return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int dive(int n, const int *anchor) {
  int local[16];
  for (int i = 0; i < 16; i++)
    local[i] = n + i;
  CS_KEEP(local);
  if (n == 0) {
    char buf[64];
    snprintf(buf, sizeof buf, "%d-%d", *anchor, local[3]);
    int sorted[32];
    for (int i = 0; i < 32; i++)
      sorted[i] = 31 - i;
    qsort(sorted, 32, sizeof(int), cmp);
    return (int)strlen(buf) + sorted[31];
  }
  return dive(n - 1, local) + local[0] - n;
}

__attribute__((noinline)) static void thrower(int n) {
  std::string s(100, 'x');
  if (n == 0)
    throw std::runtime_error(s);
  thrower(n - 1);
}

__attribute__((noinline)) static void jumper(int n, std::jmp_buf &jb) {
  char frame[200];
  memset(frame, n, sizeof frame);
  CS_KEEP(frame);
  if (n == 0)
    std::longjmp(jb, 1);
  jumper(n - 1, jb);
}

__attribute__((noinline)) static int *escape_frame(void) {
  int x[4] = {1, 2, 3, 4};
  CS_KEEP(x);
  return nullptr;
}

static int worker_task(int id) {
  int sum = 0;
  int anchor = id;
  sum += dive(60 + id, &anchor);
  try {
    thrower(30);
  } catch (const std::exception &e) {
    sum += (int)strlen(e.what()) - 100;
  }
  try {
    std::vector<int> v(3);
    (void)v.at(10); // thrown by libstdc++, on the thread's stack
  } catch (const std::out_of_range &) {
    sum += 1;
  }
#ifndef NO_SETJMP
  std::jmp_buf jb;
  if (!setjmp(jb))
    jumper(20, jb);
#endif
  escape_frame();
  return sum;
}

int main() {
  copystack::Chan<int> results(0);
  copystack::Mutex mu;
  copystack::WaitGroup wg;
  long total = 0;
  std::vector<int *> kept; // heap blocks only parked tasks point to
  for (int i = 0; i < 16; i++) {
    wg.go([i, results, &mu, &total]() mutable {
      int *mine = new int[8]();
      mine[0] = worker_task(i);
      results.send(mine[0]);
      mu.lock();
      total += mine[0];
      mu.unlock();
      delete[] mine;
    });
  }
  long got = 0;
  for (int i = 0; i < 16; i++)
    got += *results.recv();
  wg.wait();
  printf("sum %ld %ld\n", got, total);
  printf("growths %s\n", cs_growths() > 0 ? "yes" : "no");
  return got == total ? 0 : 1;
}
// CHECK: sum [[SUM:[0-9]+]] [[SUM]]
// CHECK: growths yes
// REQUIRES: san-address, san-undefined
