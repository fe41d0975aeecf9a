// timer.cc: sleep and timer channels. One timer thread keeps a heap of
// deadlines and sleeps on a condition variable until the nearest; a task
// that sleeps registers itself after it parked (__copystack_sleep_then
// runs on the worker's stack), and the timer thread makes it runnable.
// The network poller's deadlines are timers too (timer.h).
#include "platform/split_stack_notes.h"
#include "sched/timer.h"
#include "sched/trace.h"
#include "platform/fatal.h"
#include "platform/once.h"
#include "sched/deadlock.h"
#include "sched/scheduler.h"
#include "platform/stats.h"
#include "sched/sync.h"
#include "platform/thread.h"

#include "copystack/copystack.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <pthread.h>
#include <queue>
#include <sched.h>
#include <thread>
#include <vector>

namespace copystack_rt {

namespace {

struct Timer {
  uint64_t deadline;
  Task *task;           // a sleeping task to make runnable, or
  copystack_chan *chan; // a channel to send the time to (copystack_after), or
  void (*fn)(uintptr_t, uint64_t); // a function to call (add_timer)
  uintptr_t a;
  uint64_t b;
  bool operator>(const Timer &o) const { return deadline > o.deadline; }
};

struct Timers {
  std::mutex lock;
  std::condition_variable cv;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> heap;
  Once started;
  // The deadline the timer thread sleeps toward (under the lock): kNever
  // when it waits for a timer to be added, 0 while it is awake (it looks
  // at the heap again before it sleeps).
  uint64_t armed = 0;
  // The earliest deadline added without waking the timer thread
  // (add(), deferring), or kNever.
  std::atomic<uint64_t> deferred{~uint64_t(0)};
  // Forks being prepared or made in the parent (timers_fork_pause): the
  // timer thread takes no timer meanwhile. Under the lock.
  int paused = 0;
  // 1 from the moment the timer thread takes a timer from the heap (under
  // the lock) until it has fired it and counted it (without the lock).
  std::atomic<int> firing{0};
};

constexpr uint64_t kNever = ~uint64_t(0);

// Waking the timer thread costs a futex wake of a sleeping thread, about
// 12 us here, and a task that sleeps in a loop pays it on every sleep: a
// pipe's reader, woken by such a task's write, ran 25 us after it with one
// worker, 12 us without the wake (Go 15: its timers need no thread). A
// worker that registers a sleep therefore leaves the wake for later,
// unless the deadline is too near: the worker wakes the timer thread the
// next time a task comes back to it or before it goes idle
// (timers_flush), and the monitor does on its next tick (monitor_ticks_at)
// if a task keeps the worker that long. Deferring only when the monitor's
// next tick comes this long before the deadline keeps the timer on time.
constexpr uint64_t kDeferSlackNs = 1000 * 1000;

// When the monitor ticks next (scheduler.cc monitor_main), or 0 when it
// does not run.
std::atomic<uint64_t> g_monitor_next{0};

// Never destroyed: the timer thread may be waiting on it while the
// program exits.
Timers &g_timers = *new Timers;

// Timers added and not yet fired to the end.
std::atomic<uint64_t> g_pending{0};

void timer_thread() {
  RuntimeThread counted;
  pthread_setname_np(pthread_self(), "copystack-timer");
  std::unique_lock<std::mutex> g(g_timers.lock);
  for (;;) {
    if (g_timers.paused) { // a fork: timers_fork_resume wakes it
      g_timers.armed = 0;
      g_timers.cv.wait(g);
      continue;
    }
    if (g_timers.heap.empty()) {
      g_timers.armed = kNever;
      g_timers.cv.wait(g);
      g_timers.armed = 0;
      continue;
    }
    uint64_t now = now_ns();
    const Timer &top = g_timers.heap.top();
    if (top.deadline > now) {
      g_timers.armed = top.deadline;
      g_timers.cv.wait_for(g, std::chrono::nanoseconds(top.deadline - now));
      g_timers.armed = 0;
      continue;
    }
    Timer t = top;
    g_timers.heap.pop();
    g_timers.firing.store(1, std::memory_order_relaxed);
    g.unlock();
    if (t.fn) {
      t.fn(t.a, t.b);
    } else if (t.task) {
      ready(t.task);
    } else {
      // A buffered channel of one: this send never blocks.
      uint64_t when = now;
      chan_try_send(t.chan, &when);
      copystack_chan_release(t.chan);
    }
    // Only now: until the task it wakes is runnable, the timer still
    // counts as one that will wake somebody (the deadlock check).
    g_pending.fetch_sub(1);
    g_timers.firing.store(0, std::memory_order_release);
    g.lock();
  }
}

// may_defer: the caller is a worker between two tasks, which calls
// timers_flush before it runs another task's code for long.
void add(const Timer &t, bool may_defer = false) {
  g_timers.started.call([] { std::thread(timer_thread).detach(); });
  std::lock_guard<std::mutex> g(g_timers.lock);
  g_pending.fetch_add(1);
  g_timers.heap.push(t);
  if (t.deadline >= g_timers.armed)
    return; // it wakes sooner, or is awake, and looks again
  uint64_t tick = g_monitor_next.load(std::memory_order_relaxed);
  if (may_defer && tick && t.deadline >= tick + kDeferSlackNs) {
    uint64_t d = g_timers.deferred.load(std::memory_order_relaxed);
    while (t.deadline < d && !g_timers.deferred.compare_exchange_weak(d, t.deadline))
      ;
    return;
  }
  g_timers.cv.notify_one();
}

} // namespace

uint64_t timers_pending() { return g_pending.load(); }

void timers_flush() {
  if (g_timers.deferred.load(std::memory_order_relaxed) == kNever)
    return;
  std::lock_guard<std::mutex> g(g_timers.lock);
  uint64_t d = g_timers.deferred.exchange(kNever);
  if (d < g_timers.armed)
    g_timers.cv.notify_one();
}

void monitor_ticks_at(uint64_t when) {
  g_monitor_next.store(when, std::memory_order_relaxed);
}

// The Once first, as add() takes them: a fork while another thread started
// the timer thread left the child's first sleep waiting for that call's
// lock for good.
void timers_fork_lock() {
  g_timers.started.fork_lock();
  g_timers.lock.lock();
}
void timers_fork_unlock() {
  g_timers.lock.unlock();
  g_timers.started.fork_unlock();
}

// A fork while the timer thread fires a timer, between taking it from the
// heap and counting it fired, left the child with the timer neither in
// the heap nor fired: a task whose sleep it ended slept forever there, or
// the count of pending timers stayed above zero and the child's deadlock
// check never reported (a child waiting for a task lost in the fork hung,
// fork_lost_tasks.c, 1 run in 34). So the fork first stops the timer
// thread from taking timers and waits for the one it fires, before it
// takes any lock (a fire may need a channel's lock, which a task that
// began to park during a fork keeps until the fork is over).
void timers_fork_pause() {
  {
    std::lock_guard<std::mutex> g(g_timers.lock);
    ++g_timers.paused;
  }
  while (g_timers.firing.load(std::memory_order_acquire))
    sched_yield();
}

void timers_fork_resume() {
  std::lock_guard<std::mutex> g(g_timers.lock);
  if (--g_timers.paused == 0)
    g_timers.cv.notify_one();
}

// The timer thread is gone in the child; its heap is not. Nor is the
// condition variable's record of it: the parent's timer thread was
// waiting on it at the fork, and glibc's condition variable counts that
// waiter still, so a notify in the child went to the vanished waiter and
// the new timer thread slept through every deadline (a child hung in 17
// runs of 20). The child gets a new one (the old one has no waiter left
// to destroy it for).
void timers_after_fork_child() {
  new (&g_timers.cv) std::condition_variable();
  g_timers.armed = 0; // the new timer thread looks at the heap first
  g_timers.paused = 0; // the forks under way are the parent's
  g_timers.deferred.store(kNever);
  g_monitor_next.store(0); // the child's monitor starts anew
  if (g_timers.started.done())
    std::thread(timer_thread).detach();
}

void add_timer(uint64_t deadline, void (*fn)(uintptr_t, uint64_t),
               uintptr_t a, uint64_t b) {
  add(Timer{deadline, nullptr, nullptr, fn, a, b});
}

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" {

uint64_t copystack_now_ns(void) { return now_ns(); }

void __copystack_sleep_then(void *deadline) {
  Task *t = parking_task();
  set_waiting(t, kWaitSleep); // before the timer can wake it
  trace::note_reason(kWaitSleep); // the run is recorded after this
  add(Timer{reinterpret_cast<uintptr_t>(deadline), t, nullptr, nullptr, 0, 0},
      __copystack_thread.worker != nullptr);
}

copystack_chan *copystack_after(uint64_t ns) {
  copystack_chan *c = copystack_chan_make(sizeof(uint64_t), 1);
  copystack_chan_retain(c); // the timer's reference
  add(Timer{now_ns() + ns, nullptr, c, nullptr, 0, 0});
  return c;
}

} // extern "C"
