// libstdc++'s waits on a word park the task: std::atomic<T>::wait,
// std::counting_semaphore, std::latch and std::barrier make
// syscall(SYS_futex, ...) inline in the program, which the plugin sends to
// the runtime (docs/tasks.md, "Blocking calls"). Before, each waiting task
// held its worker, and the monitor started a thread for each: 10,000 such
// tasks did not finish in 60 s.
// - 2,000 tasks wait on a semaphore, a word and a latch at once: the
//   process has no more threads than its workers, the monitor and the
//   timer thread (and main's).
// - Timeouts: try_acquire_for (FUTEX_WAIT_BITSET on the monotonic clock)
//   and try_acquire_until on the system clock (FUTEX_CLOCK_REALTIME) end
//   at their deadline, not before.
// - Tasks and threads (a std::thread is a bound task, whose waits are the
//   kernel's) wake each other both ways.
// - A barrier: 8 tasks, 200 phases, growing their stacks between them, on
//   2 workers (they migrate).
// - A wake made by code built without the plugin (Inputs/plain_notify.cpp)
//   ends a task's wait: the runtime interposes syscall(). Not under TSan,
//   whose runtime keeps the interposers out.
// RUN: %cxx -std=c++20 %s -o %t
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.hpp"

#include <atomic>
#include <barrier>
#include <chrono>
#include <copystack/copystack.hpp>
#include "Inputs/thread_count.h"
#include <latch>
#include <semaphore>
#include <thread>

static void many_park() {
  constexpr int kTasks = 2000;
  std::counting_semaphore<> sem(0);
  std::atomic<int> word{0};
  std::latch all_done(kTasks), all_waiting(kTasks);
  std::atomic<long> sum{0};
  for (int i = 0; i < kTasks; i++)
    copystack::go([&, i] {
      all_waiting.count_down();
      sem.acquire();
      word.wait(0);
      cs_burn(20);
      sum += i;
      all_done.count_down();
    });
  all_waiting.wait();
  copystack_sleep_ns(20 * 1000 * 1000); // all of them in acquire()
  int threads = cs_thread_count();
  sem.release(kTasks);
  copystack_sleep_ns(5 * 1000 * 1000); // now in word.wait()
  word.store(1);
  word.notify_all();
  all_done.wait();
  printf("sum %ld, threads while parked: %s\n", sum.load(),
         threads <= 6 + CS_LOAD_SPARES ? "few" : "MANY");
  if (threads > 6)
    printf("%d threads\n", threads);
}

static void timeouts() {
  using namespace std::chrono;
  std::binary_semaphore never(0);
  auto t0 = steady_clock::now();
  bool got = never.try_acquire_for(milliseconds(20));
  auto waited = steady_clock::now() - t0;
  printf("for: %d, %s\n", got, waited >= milliseconds(20) ? "on time" : "EARLY");
  auto until = system_clock::now() + milliseconds(20);
  got = never.try_acquire_until(until);
  printf("until: %d, %s\n", got,
         system_clock::now() >= until ? "on time" : "EARLY");
}

static void with_threads() {
  std::binary_semaphore to_task(0), to_thread(0);
  std::atomic<int> got{0};
  copystack::WaitGroup wg;
  wg.add(1);
  copystack::go([&] {
    to_task.acquire(); // a thread releases it
    got = 1;
    to_thread.release(); // a thread waits for it
    wg.done();
  });
  std::thread t([&] {
    copystack_sleep_ns(10 * 1000 * 1000);
    to_task.release();
    to_thread.acquire();
  });
  t.join();
  wg.wait();
  printf("with a thread: %d\n", got.load());
}

static void barrier_phases() {
  constexpr int kTasks = 8, kPhases = 200;
  std::atomic<int> completions{0};
  std::barrier sync(kTasks, [&]() noexcept { completions++; });
  std::atomic<long> bad{0};
  std::atomic<int> phase_of[kTasks] = {};
  copystack::WaitGroup wg;
  wg.add(kTasks);
  for (int i = 0; i < kTasks; i++)
    copystack::go([&, i] {
      for (int p = 0; p < kPhases; p++) {
        cs_burn((i * 7 + p) % 40);
        phase_of[i] = p;
        sync.arrive_and_wait();
        for (int k = 0; k < kTasks; k++)
          if (phase_of[k].load() < p)
            bad++;
        sync.arrive_and_wait();
      }
      wg.done();
    });
  wg.wait();
  printf("barrier: %d phases, %ld behind\n", completions.load() / 2,
         bad.load());
}

int main() {
  many_park();
  timeouts();
  with_threads();
  barrier_phases();
  printf("done\n");
  return 0;
}
// CHECK: sum 1999000, threads while parked: few
// CHECK: for: 0, on time
// CHECK: until: 0, on time
// CHECK: with a thread: 1
// CHECK: barrier: 200 phases, 0 behind
// CHECK: done
