// Holding a task: what the observers (the task dump, the deadlock check)
// do when another holder, the collector, has it for a moment.
#include "sched/task.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace copystack_rt;

TEST(Hold, ObserverWaitsOutAnotherHolder) {
  Task t;
  t.state.store(kShrinking); // the collector has it
  std::thread collector([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    release_task(&t);
  });
  EXPECT_TRUE(hold_task_until(&t, coarse_ms() + 10000));
  EXPECT_EQ(t.state.load(), kShrinking); // now the observer's
  collector.join();
  release_task(&t);
  EXPECT_EQ(t.state.load(), kSuspended);
}

TEST(Hold, ObserverGivesUpOnAHoldThatOutlastsItsPatience) {
  Task t;
  t.state.store(kShrinking);
  EXPECT_FALSE(hold_task_until(&t, coarse_ms() + 20));
  EXPECT_EQ(t.state.load(), kShrinking); // still the other holder's
}

TEST(Hold, RunningOrFreeTasksAreNotWaitedFor) {
  Task t;
  t.state.store(kRunning);
  EXPECT_FALSE(hold_task_until(&t, coarse_ms() + 10000));
  EXPECT_EQ(t.state.load(), kRunning);
  t.state.store(kFree);
  EXPECT_FALSE(hold_task_until(&t, coarse_ms() + 10000));
  t.state.store(kSuspended);
  EXPECT_TRUE(hold_task_until(&t, coarse_ms()));
  EXPECT_FALSE(hold_task(&t)); // held once is held
}
