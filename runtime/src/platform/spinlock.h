// spinlock.h: the lock of the runtime's short critical sections (queues,
// channels, wait groups, mutexes). A task never blocks while holding one;
// a holder is at most preempted by the OS, so contenders spin briefly and
// then yield the CPU.
#ifndef COPYSTACK_SPINLOCK_H
#define COPYSTACK_SPINLOCK_H

#include "machine.h"

#include <atomic>
#include <cstdint>
#include <sched.h>

namespace copystack_rt {

// Operates on a word it does not own, so that it can live inside the
// opaque structures of the C API (copystack_waitgroup, copystack_mutex).
inline void spin_lock(std::atomic<uint32_t> &w) {
  for (int spins = 0;; ++spins) {
    if (!w.load(std::memory_order_relaxed) &&
        !w.exchange(1, std::memory_order_acquire))
      return;
    if (spins < 64)
      cpu_relax();
    else
      sched_yield();
  }
}

inline void spin_unlock(std::atomic<uint32_t> &w) {
  w.store(0, std::memory_order_release);
}

class SpinLock {
public:
  void lock() { spin_lock(word_); }
  bool try_lock() {
    uint32_t free = 0;
    return word_.compare_exchange_strong(free, 1, std::memory_order_acquire);
  }
  void unlock() { spin_unlock(word_); }
  std::atomic<uint32_t> &word() { return word_; }

private:
  std::atomic<uint32_t> word_{0};
};

} // namespace copystack_rt

#endif
