// A work queue written for threads, std::mutex and std::condition_variable,
// run by 2,000 tasks: they park (docs/tasks.md, "Blocking calls"), and the
// process has no more threads than its workers, the monitor and the timer
// thread. condition_variable::wait, out of line in libstdc++, goes to the
// runtime's wrapper; wait_for and wait_until are inline and end in
// pthread_cond_clockwait. Half the items come from code built without the
// plugin (Inputs/plain_queue.cpp), whose lock and notify reach the
// runtime's interposers. Under TSan too.
// RUN: %plain_cxx -Wno-unused-command-line-argument -c %S/Inputs/plain_queue.cpp -o %t.o
// RUN: %cxx %s %t.o -o %t
// RUN: env COPYSTACK_WORKERS=2 %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.hpp"

#include <chrono>
#include <condition_variable>
#include <copystack/copystack.hpp>
#include "Inputs/thread_count.h"
#include <mutex>
#include <queue>

void plain_push(std::mutex &mu, std::condition_variable &cv,
                std::queue<int> &q, int value);

int main() {
  constexpr int kTasks = 2000;
  std::mutex mu;
  std::condition_variable cv;
  std::queue<int> q;
  long sum = 0;
  int waiting = 0;
  copystack::WaitGroup wg;
  wg.add(kTasks);
  for (int i = 0; i < kTasks; i++)
    copystack::go([&] {
      std::unique_lock<std::mutex> l(mu);
      waiting++;
      cv.wait(l, [&] { return !q.empty(); });
      sum += q.front();
      q.pop();
      l.unlock();
      cs_burn(30);
      wg.done();
    });
  for (;;) {
    {
      std::lock_guard<std::mutex> g(mu);
      if (waiting == kTasks)
        break;
    }
    copystack_sleep_ns(1000 * 1000);
  }
  int threads = cs_thread_count();
  for (int i = 0; i < kTasks; i++) {
    if (i % 2) {
      plain_push(mu, cv, q, i);
      continue;
    }
    {
      std::lock_guard<std::mutex> g(mu);
      q.push(i);
    }
    cv.notify_one();
  }
  wg.wait();
  // Two workers, the monitor, the timer thread and main's: 6, and spares
  // the monitor may start on a loaded machine (Inputs/thread_count.h; a
  // CI run under TSan saw more than 6); a thread per waiting task would
  // be 2,000 more.
  printf("sum %ld, threads while waiting: %s\n", sum,
         threads <= 6 + CS_LOAD_SPARES ? "few" : "MANY");
  fprintf(stderr, "threads while waiting: %d\n", threads);

  // The timed waits: nobody notifies.
  using namespace std::chrono;
  std::unique_lock<std::mutex> l(mu);
  auto t0 = steady_clock::now();
  bool got = cv.wait_for(l, milliseconds(20), [] { return false; });
  printf("wait_for: %d, %s, held %d\n", got,
         steady_clock::now() - t0 >= milliseconds(20) ? "on time" : "EARLY",
         l.owns_lock());
  auto until = system_clock::now() + milliseconds(20);
  std::cv_status s = cv.wait_until(l, until);
  printf("wait_until: %s, %s\n",
         s == std::cv_status::timeout ? "timeout" : "?",
         system_clock::now() >= until ? "on time" : "EARLY");
  return 0;
}
// CHECK: sum 1999000, threads while waiting: few
// CHECK: wait_for: 0, on time, held 1
// CHECK: wait_until: timeout, on time
