// GoogleTest for the task primitives through the C++ API. This file is
// compiled with the copystack plugin (the blocking operations park from
// instrumented code); each test runs its body as a task bound to the test
// thread with copystack::run, and the tasks it starts run on four workers.
#include <copystack/copystack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

using namespace std::chrono_literals;

namespace {

class FourWorkers : public ::testing::Environment {
public:
  void SetUp() override { copystack::set_workers(4); }
};
const auto *const g_env =
    ::testing::AddGlobalTestEnvironment(new FourWorkers);

// Grows the calling task's stack by about depth * 160 bytes.
__attribute__((noinline)) int burn(int depth) {
  volatile char frame[128];
  frame[0] = static_cast<char>(depth);
  if (depth <= 0)
    return frame[0];
  return burn(depth - 1) + frame[0];
}

// Waits (parking) until only `n` tasks exist.
void settle_to(uint64_t n) {
  for (int i = 0; i < 5000 && copystack::num_tasks() != n; ++i)
    copystack::sleep_for(1ms);
}

TEST(Chan, UnbufferedHandsOverInOrder) {
  copystack::run([] {
    copystack::Chan<int> ch(0);
    copystack::go([ch]() mutable {
      for (int i = 0; i < 1000; ++i) {
        burn(i % 40);
        ch.send(i);
      }
      ch.close();
    });
    int expect = 0;
    for (int v : ch)
      EXPECT_EQ(v, expect++);
    EXPECT_EQ(expect, 1000);
  });
}

TEST(Chan, BufferedFillsWithoutBlockingThenDrainsAfterClose) {
  copystack::run([] {
    copystack::Chan<std::string> ch(3);
    ch.send("a");
    ch.send(std::string(100, 'b'));
    ch.send("c");
    EXPECT_EQ(ch.size(), 3u);
    EXPECT_EQ(ch.capacity(), 3u);
    EXPECT_FALSE(ch.try_send("d"));
    ch.close();
    EXPECT_EQ(ch.recv(), std::optional<std::string>("a"));
    EXPECT_EQ(ch.recv()->size(), 100u);
    EXPECT_EQ(ch.recv(), std::optional<std::string>("c"));
    EXPECT_EQ(ch.recv(), std::nullopt); // closed and drained
    EXPECT_EQ(ch.recv(), std::nullopt); // and stays so
    std::string out = "unchanged";
    EXPECT_FALSE(ch.recv(out));
    EXPECT_EQ(out, "unchanged");
  });
}

TEST(Chan, CloseWakesEveryBlockedReceiver) {
  copystack::run([] {
    copystack::Chan<int> ch(0);
    copystack::WaitGroup wg;
    std::atomic<int> woken{0};
    for (int i = 0; i < 100; ++i)
      wg.go([ch, &woken]() mutable {
        if (!ch.recv())
          ++woken;
      });
    settle_to(101);
    copystack::sleep_for(2ms);
    ch.close();
    wg.wait();
    EXPECT_EQ(woken.load(), 100);
  });
}

TEST(Chan, ManyProducersAndConsumersOnManyWorkers) {
  copystack::run([] {
    copystack::Chan<long> ch(16);
    copystack::Chan<long> sums(0);
    copystack::WaitGroup producers;
    for (int p = 0; p < 8; ++p)
      producers.go([ch, p]() mutable {
        for (long i = 1; i <= 1000; ++i) {
          burn(static_cast<int>((i + p) % 30));
          ch.send(i);
        }
      });
    for (int c = 0; c < 4; ++c)
      copystack::go([ch, sums]() mutable {
        long sum = 0;
        for (long v : ch)
          sum += v;
        sums.send(sum);
      });
    producers.wait();
    ch.close();
    long total = 0;
    for (int c = 0; c < 4; ++c)
      total += *sums.recv();
    EXPECT_EQ(total, 8 * 500500L);
  });
}

TEST(Select, DefaultCaseWhenNothingIsReady) {
  copystack::run([] {
    copystack::Chan<int> a(0), b(1);
    int v = 0;
    EXPECT_EQ(copystack::try_select(copystack::recv_case(a, v),
                                    copystack::recv_case(b, v)),
              -1);
    EXPECT_EQ(copystack::try_select(), -1);
    EXPECT_EQ(a.try_recv(), std::nullopt);
  });
}

TEST(Select, ReadyCasesArePickedFairly) {
  copystack::run([] {
    copystack::Chan<int> a(2000), b(2000);
    for (int i = 0; i < 2000; ++i) {
      a.send(i);
      b.send(i);
    }
    int picked[2] = {0, 0}, v;
    for (int i = 0; i < 2000; ++i)
      ++picked[copystack::select(copystack::recv_case(a, v),
                                 copystack::recv_case(b, v))];
    // 2000 fair flips: 800..1200 but for about 1 in 10^19 runs.
    EXPECT_GT(picked[0], 800);
    EXPECT_GT(picked[1], 800);
  });
}

TEST(Select, NilChannelsAndClosedChannels) {
  copystack::run([] {
    copystack::Chan<int> nil, closed(0);
    closed.close();
    int v = 5;
    bool ok = true;
    EXPECT_EQ(copystack::select(copystack::recv_case(nil, v),
                                copystack::recv_case(closed, v, &ok)),
              1);
    EXPECT_FALSE(ok);
    EXPECT_EQ(copystack::try_select(copystack::recv_case(nil, v),
                                    copystack::send_case(nil, 1)),
              -1);
  });
}

TEST(Select, BlocksUntilOneCaseProceedsAndWithdrawsTheOthers) {
  copystack::run([] {
    copystack::Chan<int> quiet(0), late(0);
    copystack::go([late]() mutable {
      copystack::sleep_for(3ms);
      late.send(7);
    });
    int v = 0;
    EXPECT_EQ(copystack::select(copystack::recv_case(quiet, v),
                                copystack::send_case(quiet, 1),
                                copystack::recv_case(late, v)),
              2);
    EXPECT_EQ(v, 7);
    // Nothing of the select is left waiting on quiet.
    EXPECT_FALSE(quiet.try_send(2));
    EXPECT_EQ(quiet.try_recv(), std::nullopt);
  });
}

TEST(Timers, SleepersWakeInDeadlineOrderAndNeverEarly) {
  copystack::run([] {
    copystack::Chan<int> order(3);
    for (int ms : {60, 20, 40})
      copystack::go([order, ms]() mutable {
        uint64_t start = copystack_now_ns();
        copystack::sleep_for(std::chrono::milliseconds(ms));
        EXPECT_GE(copystack_now_ns() - start, uint64_t(ms) * 1000000);
        order.send(ms);
      });
    EXPECT_EQ(*order.recv(), 20);
    EXPECT_EQ(*order.recv(), 40);
    EXPECT_EQ(*order.recv(), 60);
  });
}

TEST(Timers, AfterTimesOutASelect) {
  copystack::run([] {
    copystack::Chan<int> never(0);
    uint64_t start = copystack_now_ns(), fired = 0;
    auto timeout = copystack::after(5ms);
    int v;
    EXPECT_EQ(copystack::select(copystack::recv_case(never, v),
                                copystack::recv_case(timeout, fired)),
              1);
    EXPECT_GE(fired, start + 5000000);
  });
}

TEST(WaitGroup, GoFormWaitsForEveryTask) {
  copystack::run([] {
    copystack::WaitGroup wg;
    std::atomic<int> ran{0};
    for (int i = 0; i < 1000; ++i)
      wg.go([&ran, i] {
        burn(i % 50);
        copystack::yield();
        ++ran;
      });
    wg.wait();
    EXPECT_EQ(ran.load(), 1000);
    wg.wait(); // at zero: returns at once
  });
}

TEST(WaitGroup, ReusedAcrossRounds) {
  copystack::run([] {
    copystack::WaitGroup wg;
    for (int round = 0; round < 5; ++round) {
      std::atomic<int> ran{0};
      for (int i = 0; i < 50; ++i)
        wg.go([&ran] {
          copystack::sleep_for(100us);
          ++ran;
        });
      wg.wait();
      EXPECT_EQ(ran.load(), 50);
    }
  });
}

TEST(Mutex, SerializesTasksOnAllWorkers) {
  copystack::run([] {
    copystack::Mutex mu;
    copystack::WaitGroup wg;
    long counter = 0;
    for (int t = 0; t < 64; ++t)
      wg.go([&] {
        for (int i = 0; i < 200; ++i) {
          std::lock_guard<copystack::Mutex> g(mu);
          long v = counter;
          if (i % 16 == 0)
            copystack::yield(); // parked while holding it
          counter = v + 1;
        }
      });
    wg.wait();
    EXPECT_EQ(counter, 64 * 200);
    EXPECT_TRUE(mu.try_lock());
    EXPECT_FALSE(mu.try_lock());
    mu.unlock();
  });
}

TEST(Tasks, ManyTasksOnManyWorkersMigrateAndGrow) {
  copystack::run([] {
    EXPECT_EQ(copystack::workers(), 4);
    copystack::WaitGroup wg;
    std::atomic<long> total{0};
    std::atomic<int> migrated{0};
    for (int t = 0; t < 2000; ++t)
      wg.go([&, t] {
        int local = t;
        int *p = &local;
        std::thread::id first = std::this_thread::get_id();
        bool moved = false;
        for (int i = 0; i < 20; ++i) {
          burn((t + i) % 80);
          if (i % 4 == 0)
            copystack::sleep_for(50us); // woken from the timer thread
          else
            copystack::yield();
          moved |= std::this_thread::get_id() != first;
        }
        migrated += moved;
        total += *p;
      });
    wg.wait();
    EXPECT_EQ(total.load(), 1999L * 2000 / 2);
    EXPECT_GT(migrated.load(), 0);
  });
}

TEST(Tasks, CountSettlesAfterRelease) {
  // The 2 KiB-per-task accounting below holds while no collection compacts
  // the parked tasks: one that runs after they have waited a second (a
  // slow machine, a sanitizer) would free their stacks.
  copystack_policy saved, p;
  copystack_get_policy(&saved);
  p = saved;
  p.compact_parked = 0;
  copystack_set_policy(&p);
  copystack::run([] {
    settle_to(1);
    EXPECT_EQ(copystack::num_tasks(), 1u);
    copystack::Chan<char> block(0);
    copystack::WaitGroup started;
    started.add(10000);
    for (int i = 0; i < 10000; ++i)
      copystack::go([block, &started]() mutable {
        started.done();
        block.recv();
      });
    started.wait(); // every task started (and exists until released)
    EXPECT_EQ(copystack::num_tasks(), 10001u);
    copystack_stats s = copystack::stats();
    EXPECT_EQ(s.tasks_live, 10001u);
    EXPECT_GE(s.stack_inuse, 10000u * 2048);
    EXPECT_GE(s.task_sys, s.task_inuse);
    EXPECT_GE(s.sys, s.stack_sys + s.task_sys);
    block.close();
    settle_to(1);
    EXPECT_EQ(copystack::num_tasks(), 1u);
  });
  copystack_set_policy(&saved);
}

TEST(Tasks, GoFromAPlainThreadStartsTheScheduler) {
  std::atomic<bool> ran{false};
  copystack::Chan<int> done(1);
  copystack::go([&ran, done]() mutable {
    EXPECT_TRUE(copystack::in_task());
    ran = true;
    done.send(1);
  });
  copystack::run([done]() mutable { done.recv(); });
  EXPECT_TRUE(ran.load());
  EXPECT_FALSE(copystack::in_task());
}

} // namespace

namespace {

size_t stack_size_now() {
  copystack_stack_info info;
  EXPECT_EQ(copystack_current_stack(&info), 0);
  return info.size;
}

TEST(Lifecycle, CollectShrinksAParkedTaskAndItsPointersSurvive) {
  copystack::run([] {
    copystack::Chan<int> wake(0), report(0);
    copystack::go([wake, report]() mutable {
      burn(300); // grows to 16 KiB or more
      int locals[8];
      for (int i = 0; i < 8; ++i)
        locals[i] = i * i;
      int *p = &locals[5];
      size_t before = stack_size_now();
      wake.recv(); // parked: the collections run
      report.send(static_cast<int>(before / 1024));
      report.send(static_cast<int>(stack_size_now() / 1024));
      report.send(*p);
    });
    copystack::sleep_for(5ms);
    for (int i = 0; i < 8; ++i)
      copystack::collect();
    wake.send(1);
    int before = *report.recv(), after = *report.recv();
    EXPECT_GE(before, 16); // KiB, grown
    EXPECT_LE(after, 4);   // halved at each collection while parked
    EXPECT_EQ(*report.recv(), 25);
  });
}

TEST(Lifecycle, SpawnHintStartsBig) {
  copystack::run([] {
    copystack::Chan<size_t> size(1);
    copystack::go(copystack::stack_size(100 * 1024),
                  [size]() mutable { size.send(stack_size_now()); });
    EXPECT_EQ(*size.recv(), 128u * 1024);
  });
}

TEST(Lifecycle, SpawnSiteLearnsItsSize) {
  copystack::run([] {
    copystack::Chan<size_t> size(1);
    auto spawn = [&] {
      copystack::WaitGroup wg;
      wg.go([size]() mutable {
        size.send(stack_size_now());
        burn(200); // grows past the start size
      });
      wg.wait();
      return *size.recv();
    };
    size_t first = spawn();
    for (int i = 0; i < 4; ++i)
      spawn();
    EXPECT_EQ(first, 2048u);
    EXPECT_GE(spawn(), 8u * 1024); // what the first ones grew to
  });
}

TEST(Lifecycle, FreeStackMemoryGoesBackToTheOS) {
  copystack::run([] {
    copystack_stats start = copystack::stats();
    copystack::WaitGroup wg;
    copystack::Chan<int> hold(0), deep(0);
    for (int i = 0; i < 20; ++i)
      wg.go([hold, deep]() mutable {
        burn(500);
        std::vector<int> v(1);
        deep.send(1); // still deep in spirit: its stack has grown
        hold.recv();
      });
    for (int i = 0; i < 20; ++i)
      deep.recv();
    copystack_stats peak = copystack::stats();
    hold.close();
    wg.wait();
    settle_to(1);
    copystack::collect();
    copystack_stats after = copystack::stats();
    // Given back: at exit in verify mode, at the collection otherwise.
    EXPECT_GT(after.stack_released, start.stack_released);
    EXPECT_LT(after.stack_sys, peak.stack_sys);
  });
}

// A parked task on a pooled stack keeps only the pages its frames use
// resident: the pool's free-list link lives in the stack's top bytes, not
// in its bottom page.
TEST(Lifecycle, PooledStackBottomPageStaysUntouched) {
  copystack::run([] {
    copystack::collect(); // free stacks go back to the OS first
    constexpr int n = 64;
    std::vector<copystack_stack_info> info(n);
    copystack::WaitGroup parked;
    copystack::Chan<int> hold(0);
    parked.add(n);
    for (int i = 0; i < n; ++i)
      copystack::go(copystack::stack_size(32 * 1024),
                    [&info, &parked, hold, i]() mutable {
                      copystack_current_stack(&info[i]);
                      parked.done();
                      hold.recv();
                    });
    parked.wait();
    long page = sysconf(_SC_PAGESIZE);
    int bottom = 0, top = 0;
    for (const copystack_stack_info &si : info) {
      unsigned char first = 0, last = 0;
      ASSERT_EQ(mincore(reinterpret_cast<void *>(si.lo), page, &first), 0);
      ASSERT_EQ(mincore(reinterpret_cast<void *>(si.hi - page), page, &last),
                0);
      bottom += first & 1;
      top += last & 1;
    }
    hold.close();
    EXPECT_EQ(top, n);
    EXPECT_EQ(bottom, 0);
  });
}

} // namespace
