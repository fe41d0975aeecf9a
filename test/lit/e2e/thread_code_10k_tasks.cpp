// Code written for threads, run by 10,000 tasks (issue 34's program): each
// takes an item from a std::mutex + std::condition_variable work queue,
// holds a std::counting_semaphore, reads under a pthread_rwlock_t (every
// tenth writes), waits for a std::future another task fulfils, and reads a
// small file. Every wait parks: the process never has more threads than
// its workers, the monitor and the timer thread, and a few, and the spare
// workers a loaded machine makes the monitor start (Inputs/thread_count.h)
// (before: 7,683 threads with one worker, unfinished after 90 s).
// RUN: %cxx -std=c++20 %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=2 %run %t %t | FileCheck %s
#include "Inputs/check.h"

#include "Inputs/thread_count.h"
#include <atomic>
#include <condition_variable>
#include <copystack/copystack.hpp>
#include <cstring>
#include <fcntl.h>
#include <future>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <queue>
#include <semaphore>
#include <unistd.h>
#include <vector>

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  const char *path = argv[1];
  constexpr int kTasks = 10000;
  std::mutex mu;
  std::condition_variable cv;
  std::queue<int> work;
  std::counting_semaphore<> sem(8);
  pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
  long table = 0;
  std::vector<std::promise<int>> promises(kTasks);
  std::atomic<long> sum{0}, read_ok{0};
  std::atomic<int> max_threads{0};
  auto note_threads = [&] {
    int t = cs_thread_count();
    int m = max_threads.load();
    while (t > m && !max_threads.compare_exchange_weak(m, t)) {
    }
  };
  copystack::WaitGroup wg;
  wg.add(kTasks);
  for (int i = 0; i < kTasks; i++)
    copystack::go([&, i] {
      int item;
      {
        std::unique_lock<std::mutex> l(mu);
        cv.wait(l, [&] { return !work.empty(); });
        item = work.front();
        work.pop();
      }
      sem.acquire();
      if (i % 10 == 0) {
        pthread_rwlock_wrlock(&rw);
        table += 1;
        (void)item;
      } else {
        pthread_rwlock_rdlock(&rw);
      }
      pthread_rwlock_unlock(&rw);
      sem.release();
      // The next task's value: a task fulfils it, one waits for it.
      if (i + 1 < kTasks)
        promises[i + 1].set_value(1);
      int got = i == 0 ? 0 : promises[i].get_future().get();
      sum += got;
      int fd = open(path, O_RDONLY);
      char elf[4] = {};
      if (fd >= 0 && read(fd, elf, 4) == 4 && memcmp(elf + 1, "ELF", 3) == 0)
        read_ok++;
      if (fd >= 0)
        close(fd);
      if (i % 1000 == 0)
        note_threads();
      wg.done();
    });
  for (int i = 0; i < kTasks; i++) {
    {
      std::lock_guard<std::mutex> g(mu);
      work.push(i);
    }
    cv.notify_one();
    if (i % 2500 == 0) {
      note_threads();
      copystack_sleep_ns(1000 * 1000);
    }
  }
  wg.wait();
  note_threads();
  int workers = copystack_workers();
  printf("table %ld, futures %ld, files %ld, threads: %s\n", table, sum.load(),
         read_ok.load(),
         max_threads.load() <= workers + 4 + CS_LOAD_SPARES ? "few" : "MANY");
  if (max_threads.load() > workers + 4 + CS_LOAD_SPARES)
    printf("%d threads with %d workers\n", max_threads.load(), workers);
  return 0;
}
// CHECK: table 1000, futures 9999, files 10000, threads: few
