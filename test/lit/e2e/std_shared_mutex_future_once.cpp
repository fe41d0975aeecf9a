// The C++ standard library's waits park tasks (docs/tasks.md, "Blocking
// calls"), with few threads for thousands of waiting tasks:
// - std::shared_mutex (pthread rwlocks, inline): 2,000 tasks, one in ten
//   a writer that parks while it holds the lock; before, a writer's lock
//   threw std::system_error ("Resource deadlock avoided") when another
//   task on its worker held it, and readers blocked their worker.
// - std::shared_future::wait and std::future::get (libstdc++'s futex
//   waits, out of line): 2,000 tasks wait for a value a std::thread sets;
//   wait_for times out.
// - std::call_once: 2,000 tasks; the callable parks (a sleep: libstdc++
//   and glibc would have run it on the thread's stack, where a task
//   cannot park); a callable that throws leaves the flag for the next.
// - std::latch and std::barrier (atomic waits, inline): 500 tasks.
// - std::thread::join (out of line) from 200 tasks.
// The threads are counted while every task of a part waits, and again for
// up to 10 s until they are few: on a loaded machine the OS may keep a
// worker off its CPU in a foreign call long enough for the monitor to
// start a spare, and the replaced thread needs a moment to end (under
// qemu on a machine running other suites too, 2 s was not always enough
// for the latch and barrier part). Tasks that held their threads would
// hold them for all of it: they wait until the count is taken.
// RUN: %cxx -std=c++20 %s -o %t
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.hpp"

#include "Inputs/thread_count.h"
#include <atomic>
#include <barrier>
#include <chrono>
#include <copystack/copystack.hpp>
#include <future>
#include <latch>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <thread>

using namespace std::chrono;

// Runs n tasks of f(i), waits until every one has started, counts the
// process's threads, calls release() and waits for the tasks to end.
// "few": no more than the workers, the monitor, the timer thread and two,
// while the tasks wait (tasks that blocked their threads would hold them
// until release()).
template <class F, class R> static const char *tasks(int n, F f, R release) {
  copystack::WaitGroup wg;
  wg.add(n);
  std::atomic<int> started{0};
  for (int i = 0; i < n; i++)
    copystack::go([&, i] {
      started++;
      f(i);
      wg.done();
    });
  while (started.load() < n)
    copystack_sleep_ns(1000 * 1000);
  // Few once they all wait, for as long as they wait (up to 10 s here).
  const int few = copystack_workers() + 4;
  int threads = cs_thread_count();
  for (int ms = 0; threads > few && ms < 10000; ms++) {
    copystack_sleep_ns(1000 * 1000);
    threads = cs_thread_count();
  }
  release();
  wg.wait();
  return threads <= few ? "few" : "MANY";
}

int main() {
  constexpr int kTasks = 2000;

  std::shared_mutex sm;
  long shared_count = 0;
  std::atomic<int> writers_in{0}, bad{0};
  std::unique_lock held(sm); // until the count
  const char *threads = tasks(
      kTasks,
      [&](int i) {
        if (i % 10 == 0) {
          std::unique_lock l(sm);
          if (writers_in.fetch_add(1) != 0)
            bad++;
          long c = shared_count;
          copystack_sleep_ns(100 * 1000); // parks, holding it
          shared_count = c + 1;
          writers_in.fetch_sub(1);
        } else {
          std::shared_lock l(sm);
          if (writers_in.load() != 0)
            bad++;
          copystack_sleep_ns(1000);
        }
      },
      [&] { held.unlock(); });
  printf("shared_mutex: %ld writes, %d overlaps, threads: %s\n", shared_count,
         bad.load(), threads);

  std::promise<int> p;
  std::shared_future<int> sf = p.get_future().share();
  std::atomic<long> got{0};
  std::thread setter;
  threads = tasks(
      kTasks,
      [&](int) {
        sf.wait();
        got += sf.get();
      },
      [&] {
        setter = std::thread([&] { p.set_value(42); });
      });
  setter.join();
  std::promise<void> never;
  std::future<void> f = never.get_future();
  auto t0 = steady_clock::now();
  std::future_status st = f.wait_for(milliseconds(20));
  printf("future: %ld, threads: %s; wait_for: %s, %s\n", got.load(), threads,
         st == std::future_status::timeout ? "timeout" : "?",
         steady_clock::now() - t0 >= milliseconds(20) ? "on time" : "EARLY");

  std::once_flag once;
  std::atomic<int> inits{0}, saw{0};
  std::atomic<bool> go_on{false};
  threads = tasks(
      kTasks,
      [&](int) {
        std::call_once(once, [&] {
          while (!go_on.load()) // parks while the others wait
            copystack_sleep_ns(1000 * 1000);
          inits++;
        });
        if (inits.load() == 1)
          saw++;
      },
      [&] { go_on = true; });
  std::once_flag flaky;
  int attempts = 0;
  for (int i = 0; i < 3; i++) {
    try {
      std::call_once(flaky, [&] {
        if (++attempts == 1)
          throw std::runtime_error("first try");
      });
    } catch (const std::runtime_error &) {
    }
  }
  printf("call_once: %d init, %d saw it, threads: %s; after a throw: %d "
         "attempts\n",
         inits.load(), saw.load(), threads, attempts);

  // Fewer: every task spins a little in each wait before it parks, and
  // stress mode moves a stack at every switch.
  constexpr int kMeet = 500;
  std::latch latch(kMeet + 1);
  std::barrier barrier(kMeet + 1);
  std::atomic<int> rounds{0};
  const char *latch_threads = tasks(
      kMeet,
      [&](int) {
        latch.arrive_and_wait();
        barrier.arrive_and_wait();
        barrier.arrive_and_wait();
        rounds++;
      },
      [&] {
        latch.count_down();
        barrier.arrive_and_wait();
        barrier.arrive_and_wait();
      });
  printf("latch and barrier: %d, threads: %s\n", rounds.load(), latch_threads);

  std::atomic<int> joined{0};
  std::promise<void> end;
  std::shared_future<void> ended = end.get_future().share();
  tasks(
      200,
      [&](int) {
        std::thread t([&] { ended.wait(); }); // its own task: it blocks
        t.join();
        if (!t.joinable())
          joined++;
      },
      [&] { end.set_value(); });
  bool threw = false;
  try {
    std::thread none;
    none.join();
  } catch (const std::system_error &) {
    threw = true;
  }
  printf("std::thread::join: %d; not joinable: %s\n", joined.load(),
         threw ? "throws" : "?");
  return 0;
}
// CHECK: shared_mutex: 200 writes, 0 overlaps, threads: few
// CHECK: future: 84000, threads: few; wait_for: timeout, on time
// CHECK: call_once: 1 init, 2000 saw it, threads: few; after a throw: 2 attempts
// CHECK: latch and barrier: 500, threads: few
// CHECK: std::thread::join: 200; not joinable: throws
