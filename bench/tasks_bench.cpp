// tasks_bench: what a task costs, beside the same programs in Go
// (bench/go/tasks). scripts/bench-tasks runs both and prints the ratios.
//
//   tasks_bench park KIND N   N tasks signal a wait group, then block
//                             (KIND: chan, mutex, select, sleep); prints
//                             per task: spawn ns, stack, heap, OS memory
//                             and RSS, from deltas around the spawning
//   tasks_bench pingpong N    N round trips between two tasks over
//                             unbuffered channels; prints ns per trip
//   tasks_bench spawnjoin N   N tasks that only signal a wait group, then
//                             wait; prints ns per task
//   tasks_bench idle N        N tasks park on a channel; two collections
//                             (copystack_collect: compacts them unless
//                             COPYSTACK_COMPACT=0); prints RSS per task
//                             parked and after the collections, then closes
//                             the channel and prints ns per task woken
//   tasks_bench wakeup KIND B N
//                             B tasks spin without parking; one task waits
//                             N times for 10 ms (KIND sleep: a sleep;
//                             pipe: a read of a pipe another task writes
//                             after its own 10 ms sleep); prints how late
//                             it ran after each wake-up: mean, p99, max us
//
// main runs as a task (copystack-c++ links it so), like Go's main
// goroutine. Memory: stack from copystack_stats; heap and what the C heap
// got from the OS from mallinfo2 (task structures, pinned chunks and
// channels all come from it); OS memory is the stacks' plus the heap's;
// RSS from /proc/self/statm, and the peak from getrusage.
#include <copystack/copystack.hpp>

#include "bench_common.hpp"

#include <chrono>
#include <vector>
#include <atomic>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;

struct Mem {
  double stack, heap, sys, rss;
};

double max_rss_bytes() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) * 1024;
}

Mem read_mem() {
  copystack_stats s = copystack::stats();
  struct mallinfo2 mi = mallinfo2();
  Mem m;
  m.stack = double(s.stack_inuse);
  m.heap = double(mi.uordblks + mi.hblkhd);
  m.sys = double(s.stack_sys) + double(mi.arena + mi.hblkhd);
  m.rss = rss_bytes();
  return m;
}

double ns_since(Clock::time_point t0) {
  return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                    Clock::now() - t0)
                    .count());
}

int park(const char *kind, long n) {
  copystack::Chan<char> block(0);
  copystack::Mutex held;
  held.lock();
  copystack::WaitGroup started;
  int k = !strcmp(kind, "chan")     ? 0
          : !strcmp(kind, "mutex")  ? 1
          : !strcmp(kind, "select") ? 2
          : !strcmp(kind, "sleep")  ? 3
                                    : -1;
  if (k < 0) {
    fprintf(stderr, "tasks_bench: unknown kind %s\n", kind);
    return 2;
  }
  Mem before = read_mem();
  started.add(n);
  auto t0 = Clock::now();
  for (long i = 0; i < n; ++i) {
    switch (k) {
    case 0:
      copystack::go([&started, block]() mutable {
        started.done();
        block.recv();
      });
      break;
    case 1:
      copystack::go([&started, &held] {
        started.done();
        held.lock();
        held.unlock();
      });
      break;
    case 2:
      copystack::go([&started] {
        started.done();
        copystack::select(); // forever
      });
      break;
    case 3:
      copystack::go([&started] {
        started.done();
        copystack::sleep_for(std::chrono::hours(1));
      });
      break;
    }
  }
  started.wait();
  double spawn = ns_since(t0);
  // Let the last tasks reach their blocking call (Go's program sleeps
  // 50 ms after the last Done too).
  copystack::sleep_for(std::chrono::milliseconds(50));
  Mem after = read_mem();
  double peak = max_rss_bytes();
  printf("n=%ld tasks=%llu spawn_ns=%.0f stack=%.0f heap=%.0f sys=%.0f "
         "rss=%.0f maxrss=%.0f\n",
         n, (unsigned long long)copystack::num_tasks(), spawn / n,
         (after.stack - before.stack) / n, (after.heap - before.heap) / n,
         (after.sys - before.sys) / n, (after.rss - before.rss) / n,
         (peak - before.rss) / n);
  fflush(stdout);
  // The parked tasks are not released: the process exits with them, as
  // Go's does.
  _exit(0);
}

int idle(long n) {
  copystack::Chan<char> block(0);
  copystack::WaitGroup started, finished;
  Mem before = read_mem();
  started.add(n);
  finished.add(n);
  for (long i = 0; i < n; ++i)
    copystack::go([&started, &finished, block]() mutable {
      started.done();
      block.recv();
      finished.done();
    });
  started.wait();
  copystack::sleep_for(std::chrono::milliseconds(50));
  Mem parked = read_mem();
  auto t0 = Clock::now();
  copystack::collect(); // sees them parked
  copystack::collect(); // parked across a collection: compacts them
  double collect = ns_since(t0);
  Mem after = read_mem();
  copystack_stats s = copystack::stats();
  t0 = Clock::now();
  block.close();
  finished.wait();
  double wake = ns_since(t0);
  copystack_stats woke = copystack::stats();
  uint64_t expansions = woke.expansions - s.expansions;
  printf("n=%ld compacted=%llu rss_parked=%.0f rss_idle=%.0f heap_idle=%.0f "
         "collect_ms=%.1f wake_ns=%.0f expand_ns=%.0f\n",
         n, (unsigned long long)s.tasks_compacted,
         (parked.rss - before.rss) / n, (after.rss - before.rss) / n,
         (after.heap + after.stack - before.heap - before.stack) / n,
         collect / 1e6, wake / n,
         expansions ? double(woke.expand_ns - s.expand_ns) / expansions : 0.0);
  return 0;
}

// How late a woken task runs while busy tasks keep every worker: for a
// sleep, past its deadline; for a pipe, past the write that woke it.
int wakeup(const char *kind, long busy, long n) {
  std::atomic<bool> stop{false};
  copystack::WaitGroup spinners;
  spinners.add(busy);
  for (long i = 0; i < busy; ++i)
    copystack::go([&stop, &spinners] {
      volatile uint64_t x = 0;
      while (!stop.load(std::memory_order_relaxed))
        x = x + 1;
      spinners.done();
    });
  constexpr uint64_t kWait = 10 * 1000 * 1000;
  std::vector<double> late;
  bool pipe_kind = !strcmp(kind, "pipe");
  int fds[2] = {-1, -1};
  copystack::WaitGroup writer;
  if (pipe_kind) {
    if (pipe(fds) != 0)
      return 1;
    writer.add(1);
    copystack::go([fds, n, &writer] {
      for (long i = 0; i < n; ++i) {
        copystack_sleep_ns(kWait);
        uint64_t sent = copystack_now_ns();
        if (write(fds[1], &sent, sizeof sent) != sizeof sent)
          break;
      }
      writer.done();
    });
  }
  for (long i = 0; i < n; ++i) {
    if (pipe_kind) {
      uint64_t sent;
      if (read(fds[0], &sent, sizeof sent) != sizeof sent)
        return 1;
      late.push_back((copystack_now_ns() - sent) / 1e3);
    } else {
      uint64_t t0 = copystack_now_ns();
      copystack_sleep_ns(kWait);
      late.push_back((copystack_now_ns() - t0 - kWait) / 1e3);
    }
  }
  stop = true;
  spinners.wait();
  if (pipe_kind)
    writer.wait();
  std::sort(late.begin(), late.end());
  double sum = 0;
  for (double v : late)
    sum += v;
  printf("n=%ld mean_us=%.0f p99_us=%.0f max_us=%.0f\n", n, sum / n,
         late[(late.size() * 99) / 100 < late.size() ? (late.size() * 99) / 100
                                                    : late.size() - 1],
         late.back());
  return 0;
}

int pingpong(long n) {
  copystack::Chan<long> ping(0), pong(0);
  copystack::go([ping, pong]() mutable {
    for (;;) {
      auto v = ping.recv();
      if (!v)
        return;
      pong.send(*v + 1);
    }
  });
  long v = 0;
  for (long i = 0; i < 1000; ++i) { // warm up
    ping.send(v);
    v = *pong.recv();
  }
  auto t0 = Clock::now();
  for (long i = 0; i < n; ++i) {
    ping.send(v);
    v = *pong.recv();
  }
  double ns = ns_since(t0);
  ping.close();
  printf("n=%ld ns=%.1f check=%ld\n", n, ns / n, v);
  return 0;
}

int spawnjoin(long n) {
  copystack::WaitGroup wg;
  auto t0 = Clock::now();
  wg.add(n);
  for (long i = 0; i < n; ++i)
    copystack::go([&wg] { wg.done(); });
  wg.wait();
  double ns = ns_since(t0);
  printf("n=%ld ns=%.1f\n", n, ns / n);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "park"))
    return park(argv[2], atol(argv[3]));
  if (argc >= 5 && !strcmp(argv[1], "wakeup"))
    return wakeup(argv[2], atol(argv[3]), atol(argv[4]));
  if (argc >= 3 && !strcmp(argv[1], "pingpong"))
    return pingpong(atol(argv[2]));
  if (argc >= 3 && !strcmp(argv[1], "spawnjoin"))
    return spawnjoin(atol(argv[2]));
  if (argc >= 3 && !strcmp(argv[1], "idle"))
    return idle(atol(argv[2]));
  fprintf(stderr, "usage: tasks_bench park chan|mutex|select|sleep N\n"
                  "       tasks_bench pingpong N\n"
                  "       tasks_bench spawnjoin N\n"
                  "       tasks_bench idle N\n");
  return 2;
}
