// The C++ runtime keeps its exception state per thread (the Itanium ABI's
// __cxa_eh_globals: the stack of caught exceptions that
// std::current_exception and `throw;` read, and the count of thrown, not
// yet caught ones that std::uncaught_exceptions gives). Each task has its
// own: a task that parks inside a catch block (a sleep, a channel, a
// contended std::mutex, a yield, a preemption in a spin) and resumes, on
// another worker maybe, still has its exception to rethrow, and the tasks
// that ran meanwhile saw none of it; a destructor that parks while an
// exception unwinds through it sees the same std::uncaught_exceptions()
// after the park, and other tasks see theirs. Before, 1,577 of 1,600
// rethrows after a sleep found no exception or another task's.
// RUN: %cxx %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
// A thread of the program's own (COPYSTACK_THREADS=0: std::thread makes a
// thread), inside its catch block, runs a task on itself (copystack_run):
// the task sees none of the thread's exception, and the thread rethrows
// its own after.
// RUN: env COPYSTACK_THREADS=0 %run %t thread | FileCheck %s --check-prefix=THREAD
#include "Inputs/check.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static copystack_chan *tokens;
static std::mutex contended;
static std::atomic<int> bad, rethrown, unwound;
constexpr int kTasks = 8, kRounds = 60;

__attribute__((noinline)) static void spin_ms(int ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < end) {
  }
}

// Parks the task one way or another (round picks which).
__attribute__((noinline)) static void park(int round) {
  switch (round % 5) {
  case 0:
    copystack_sleep_ns(20000);
    break;
  case 1: {
    long v = round;
    copystack_chan_send(tokens, &v);
    copystack_chan_recv(tokens, &v);
    break;
  }
  case 2: {
    std::lock_guard<std::mutex> g(contended);
    copystack_sleep_ns(10000); // holds it: the others wait for it
    break;
  }
  case 3:
    copystack_yield();
    break;
  case 4:
    if (round % 20 == 4)
      spin_ms(25); // past a time slice: preempted, with others runnable
    else
      copystack_yield();
    break;
  }
}

struct ParksWhileUnwinding {
  long id;
  ~ParksWhileUnwinding() {
    int before = std::uncaught_exceptions();
    if (before != 1)
      bad++;
    park((int)id);
    if (std::uncaught_exceptions() != before)
      bad++;
    unwound++;
  }
};

__attribute__((noinline)) static void throw_through_guard(long id) {
  ParksWhileUnwinding g{id};
  throw std::runtime_error("unwinding " + std::to_string(id));
}

static void worker(void *arg) {
  long id = (long)arg;
  for (int round = 0; round < kRounds; round++) {
    const std::string want = std::to_string(id * 1000 + round);
    try {
      try {
        throw std::runtime_error(want);
      } catch (const std::exception &) {
        park(round);
        // A second exception caught and finished inside the first's
        // handler: the first is current again after it.
        try {
          throw std::logic_error("inner");
        } catch (const std::logic_error &) {
          park(round + 1);
        }
        if (!std::current_exception() || std::uncaught_exceptions() != 0)
          bad++;
        throw; // the first one
      }
    } catch (const std::runtime_error &e) {
      if (e.what() != want)
        bad++;
      else
        rethrown++;
    }
    try {
      throw_through_guard(id);
    } catch (const std::runtime_error &) {
    }
    if (std::current_exception() || std::uncaught_exceptions() != 0)
      bad++;
  }
  copystack_waitgroup_done(&wg);
}

static void on_thread(void *) {
  if (std::current_exception())
    bad++;
  try {
    throw std::logic_error("the task's");
  } catch (const std::logic_error &) {
    copystack_sleep_ns(1000);
    if (!std::current_exception())
      bad++;
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "thread") {
    std::thread t([] {
      try {
        throw std::runtime_error("the thread's");
      } catch (const std::runtime_error &) {
        copystack_run(on_thread, nullptr);
        try {
          throw;
        } catch (const std::runtime_error &e) {
          if (std::string(e.what()) != "the thread's")
            bad++;
        }
      }
    });
    t.join();
    printf("thread: bad %d\n", bad.load());
    return 0;
  }
  tokens = copystack_chan_make(sizeof(long), 1);
  try {
    throw 42; // main's own, caught while the tasks run
  } catch (int) {
    copystack_waitgroup_add(&wg, kTasks);
    for (long i = 0; i < kTasks; i++)
      copystack_go(worker, (void *)i);
    copystack_waitgroup_wait(&wg);
    try {
      throw;
    } catch (int v) {
      REQUIRE(v == 42);
    }
  }
  printf("rethrown %d, unwound %d, bad %d\n", rethrown.load(),
         unwound.load(), bad.load());
  return 0;
}
// CHECK: rethrown 480, unwound 480, bad 0
// THREAD: thread: bad 0
