// observe.h: the scheduler's one test for its observers, the execution
// trace (trace.h) and the block profile (profile.h), which record at every
// run, park and wake-up: a load of one global byte and a branch not taken
// while neither records (scheduler.cc execute() and ready() then run code
// with none of theirs; docs/benchmarks.md has the measurement).
#ifndef COPYSTACK_OBSERVE_H
#define COPYSTACK_OBSERVE_H

#include <atomic>
#include <cstdint>

namespace copystack_rt {

enum : uint8_t { kObserveTrace = 1, kObserveBlock = 2 };

extern std::atomic<uint8_t> g_observers;

inline bool observed() {
  return g_observers.load(std::memory_order_relaxed) != 0;
}

inline void set_observer(uint8_t which, bool on) {
  if (on)
    g_observers.fetch_or(which);
  else
    g_observers.fetch_and(static_cast<uint8_t>(~which));
}

} // namespace copystack_rt

#endif
