// The C++ API: go with small, large and argument-taking callables; Chan<T>
// of trivially copyable, self-referencing (short std::string) and
// move-only elements, buffered and unbuffered, with range-for and close;
// select and try_select; WaitGroup.go; Mutex with std::lock_guard; after().
// Tasks grow their stacks between operations, so elements and waiters must
// never point into a stack that moves.
// RUN: %cxx %s -o %t && %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"
#include <copystack/copystack.hpp>

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace std::chrono_literals;

static int grow(int depth) { return cs_burn(depth) - cs_burn(depth); }

static void strings_through_channels() {
  // Short strings keep their characters inside the object (a pointer to
  // itself); long ones on the heap. Both kinds pass through both kinds of
  // channel while sender and receiver stacks move.
  for (size_t cap : {size_t(0), size_t(3)}) {
    copystack::Chan<std::string> ch(cap);
    copystack::go([ch]() mutable {
      for (int i = 0; i < 50; ++i) {
        std::string s = i % 2 ? std::string(40, char('a' + i % 26))
                              : std::to_string(i);
        grow(40 + i);
        ch.send(std::move(s));
      }
      ch.close();
    });
    size_t total = 0;
    int n = 0;
    for (std::string s : ch) {
      grow(60);
      REQUIRE(s == (n % 2 ? std::string(40, char('a' + n % 26))
                          : std::to_string(n)));
      total += s.size();
      ++n;
    }
    printf("strings cap %zu: %d received, %zu bytes\n", cap, n, total);
    REQUIRE(!ch.recv()); // closed and drained, again
  }
}

static void move_only_elements() {
  copystack::Chan<std::unique_ptr<int>> ch(2);
  ch.send(std::make_unique<int>(7));
  ch.send(std::make_unique<int>(8));
  REQUIRE(!ch.try_send(std::make_unique<int>(9))); // full
  std::unique_ptr<int> a, b;
  REQUIRE(ch.recv(a) && ch.recv(b));
  printf("move-only: %d %d, len %zu of %zu\n", *a, *b, ch.size(),
         ch.capacity());
  // Left in a channel that goes away: destroyed with it.
  ch.send(std::make_unique<int>(10));
}

static void go_forms() {
  copystack::WaitGroup wg;
  std::array<long, 8> big{1, 2, 3, 4, 5, 6, 7, 8}; // 64 bytes: on the heap
  long sum_big = 0, sum_args = 0;
  copystack::Mutex mu;
  wg.go([big, &sum_big, &mu] {
    grow(200);
    std::lock_guard<copystack::Mutex> g(mu);
    for (long v : big)
      sum_big += v;
  });
  wg.add(1);
  copystack::go(
      [&](int x, std::string s) {
        grow(300);
        {
          std::lock_guard<copystack::Mutex> g(mu);
          sum_args = x + static_cast<long>(s.size());
        }
        wg.done();
      },
      40, std::string("two"));
  wg.wait();
  printf("go forms: %ld %ld\n", sum_big, sum_args);
}

static void counter_under_mutex() {
  copystack::Mutex mu;
  copystack::WaitGroup wg;
  long counter = 0;
  for (int t = 0; t < 100; ++t)
    wg.go([&, t] {
      for (int i = 0; i < 100; ++i) {
        grow(t % 7 * 20);
        std::lock_guard<copystack::Mutex> g(mu);
        long v = counter;
        if (i % 10 == 0)
          copystack::yield(); // hold the lock across a park
        counter = v + 1;
      }
    });
  wg.wait();
  REQUIRE(mu.try_lock());
  REQUIRE(!mu.try_lock());
  mu.unlock();
  printf("mutex counter: %ld\n", counter);
}

static void selects() {
  copystack::Chan<int> a(1), b(1), nil;
  int v = -1;
  bool ok = false;
  // Nothing ready: the default case.
  REQUIRE(copystack::try_select(copystack::recv_case(a, v),
                                copystack::recv_case(b, v)) == -1);
  // A send case that is not chosen keeps its value out of the channel.
  b.send(5);
  int r = copystack::select(copystack::recv_case(nil, v),
                            copystack::send_case(b, 6),
                            copystack::recv_case(b, v, &ok));
  REQUIRE(r == 2 && v == 5 && ok);
  REQUIRE(b.size() == 0);
  // Blocking: woken by a task that sends later.
  copystack::go([a]() mutable {
    copystack::sleep_for(2ms);
    a.send(11);
  });
  r = copystack::select(copystack::recv_case(a, v, &ok),
                        copystack::recv_case(nil, v));
  REQUIRE(r == 0 && v == 11);
  // Closed: ok is false.
  a.close();
  v = 99;
  r = copystack::select(copystack::recv_case(a, v, &ok));
  REQUIRE(r == 0 && !ok && v == 99);
  // A timeout.
  copystack::Chan<int> never(0);
  uint64_t fired = 0;
  uint64_t before = copystack_now_ns();
  auto timeout = copystack::after(3ms);
  r = copystack::select(copystack::recv_case(never, v),
                        copystack::recv_case(timeout, fired));
  REQUIRE(r == 1 && fired >= before + 3000000);
  printf("selects: ok\n");
}

static void ping_pong() {
  copystack::Chan<int> ping(0), pong(0);
  copystack::go([ping, pong]() mutable {
    for (;;) {
      auto v = ping.recv();
      if (!v)
        break;
      grow(*v % 50);
      pong.send(*v + 1);
    }
    pong.close();
  });
  int v = 0;
  for (int i = 0; i < 1000; ++i) {
    ping.send(v);
    v = *pong.recv();
  }
  ping.close();
  REQUIRE(!pong.recv());
  printf("ping-pong: %d\n", v);
}

int main() {
  REQUIRE(copystack::in_task());
  strings_through_channels();
  move_only_elements();
  go_forms();
  counter_under_mutex();
  selects();
  ping_pong();
  // Every task started above has finished or is finishing.
  for (int i = 0; i < 1000 && copystack::num_tasks() != 1; ++i)
    copystack::sleep_for(1ms);
  printf("tasks left: %llu\n", (unsigned long long)copystack::num_tasks());
  return 0;
}
// CHECK: strings cap 0: 50 received, 1045 bytes
// CHECK: strings cap 3: 50 received, 1045 bytes
// CHECK: move-only: 7 8, len 0 of 2
// CHECK: go forms: 36 43
// CHECK: mutex counter: 10000
// CHECK: selects: ok
// CHECK: ping-pong: 1000
// CHECK: tasks left: 1
