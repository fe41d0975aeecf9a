// once.h: running something once, without std::call_once.
//
// The runtime runs inside the program's calls (a prologue's growth, a
// foreign call's trampoline, a collection), and libstdc++'s std::call_once
// keeps its callable in two thread-locals (std::__once_callable,
// std::__once_call) that it sets before pthread_once and clears after,
// even when the flag is long set. A runtime call_once on the growth path
// cleared them under a call_once of the program still in flight: its
// pthread_once then called a null function (a task's std::async under
// stress and verify modes). Once touches no thread-local state.
#ifndef COPYSTACK_ONCE_H
#define COPYSTACK_ONCE_H

#include <atomic>
#include <mutex>

namespace copystack_rt {

class Once {
public:
  template <typename F> void call(F &&f) {
    if (done_.load(std::memory_order_acquire))
      return;
    std::lock_guard<std::mutex> g(lock_);
    if (done_.load(std::memory_order_relaxed))
      return;
    f();
    done_.store(true, std::memory_order_release);
  }

  bool done() const { return done_.load(std::memory_order_acquire); }

  // fork(): held across it, so that the child does not inherit a call
  // another thread was in the middle of (and the lock with it).
  void fork_lock() { lock_.lock(); }
  void fork_unlock() { lock_.unlock(); }

private:
  std::atomic<bool> done_{false};
  std::mutex lock_;
};

} // namespace copystack_rt

#endif
