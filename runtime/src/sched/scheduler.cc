// scheduler.cc: the M:N scheduler (scheduler.h).
#include "platform/split_stack_notes.h"
#include "sched/scheduler.h"
#include "sched/timer.h"
#include "raw_syscall.h"
#include "platform/signals.h"
#include "core/copy.h"
#include "core/shrink.h"
#include "sched/collect.h"
#include "sched/deadlock.h"
#include "sched/dump.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/once.h"
#include "platform/spinlock.h"
#include "platform/sanitizers.h"
#include "platform/stats.h"
#include "platform/valgrind.h"
#include "platform/thread.h"
#include "core/verify.h"
#include "sched/netpoll.h"
#include "sched/observe.h"
#include "sched/preempt.h"
#include "sched/preempt_signal.h"
#include "sched/profile.h"
#include "sched/trace.h"

#include "copystack/copystack.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <linux/futex.h>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <thread>
#include <time.h>
#include <cstdlib>
#include <unistd.h>
#include <utility>
#include <vector>

extern "C" void __copystack_preempt_then(void *); // preempt.cc
extern "C" void __copystack_signal_then(void *);  // preempt_signal.cc

namespace copystack_rt {


struct Worker {
  int id = 0;
  SignalBuffers signal; // used by its thread only (preempt_signal.cc)
  // Replaced in its slot by a spare while stuck in a foreign call: gives
  // what is queued on it to the global queue, runs the tasks preempted on
  // its thread (they resume only there), and exits when it has none.
  std::atomic<bool> retired{false};
  // Go's runq: the owner puts at tail and takes at head; thieves take half
  // from head with a compare-and-swap.
  static constexpr uint32_t kQueue = 256;
  std::atomic<uint32_t> head{0};
  std::atomic<uint32_t> tail{0};
  std::atomic<Task *> ring[kQueue];
  std::atomic<Task *> runnext{nullptr};
  // Sleeping: the futex word is 1 while the worker may sleep.
  std::atomic<int> sleep_word{0};
  std::atomic<bool> idle{false};
  uint32_t rand_state = 1;
  uint64_t ticks = 0;
  // Which shared queue refills an empty local queue first (look()).
  bool refill_global = false;
  // When this worker's queue overflowed, its oldest half went to the
  // global queue: until the global queue has handed out every task put
  // there up to then (its `takes` reach this), it comes before the local
  // queue, so those tasks do not wait behind the newer ones left here
  // (runq_put). The owner's, and a spare's that inherits the queue
  // (inherit_queue: the stuck owner may come back meanwhile, so relaxed
  // atomics).
  std::atomic<uint64_t> global_first_until{0};
  // Published once the worker runs; the monitor reads its foreign-call state.
  std::atomic<Thread *> thread{nullptr};
  // Held while the monitor writes to a retired worker's thread, and by the
  // thread when it unpublishes itself to exit: its thread-local storage
  // goes with it.
  SpinLock thread_lock;
  // The monitor's last look at this worker's foreign calls.
  uint64_t seen_seq = 0;
  int stuck_polls = 0;
  // Hand-offs of this slot in a row, each soon after the one before, and
  // when the last one was (monitor_main's back-off).
  int handoff_streak = 0;
  uint64_t handoff_ns = 0;
  // 1 while a spare's thread waits for the monitor to give it its slot
  // (monitor_main starts the thread first, so that a thread the OS will
  // not start leaves the stuck worker in place); a futex word.
  std::atomic<int> gate{0};
  // The task this worker runs before it looks for work: the program's main
  // task, on worker 0, which is the process's initial thread (run_main).
  Task *first = nullptr;
};

namespace {

constexpr int kMaxWorkers = 1024;

// A FIFO of tasks shared by all workers, under a mutex (Go's sched.lock).
// Not a SpinLock: the timer thread and other threads outside the workers
// put here, and ThreadSanitizer (the runtime's own TSan build) did not see
// their spin-lock release order the workers' reads of the queue after it.
struct TaskQueue {
  std::mutex lock;
  Task *head = nullptr, *tail = nullptr;
  std::atomic<uint64_t> len{0};
  // Tasks ever put and taken (under the lock; read without it).
  std::atomic<uint64_t> puts{0}, takes{0};
  void put(Task *t) { put_chain(t, t, 1); }
  // Appends first..last, n tasks already chained through next, under one
  // lock; returns `puts` after them.
  uint64_t put_chain(Task *first, Task *last, uint64_t n);
  Task *get(Worker *w, uint32_t batch);
};

struct Scheduler {
  Once started;
  // The worker threads and the monitor; with copystack_main, only once
  // main first spawns or parks (start_rest).
  Once rest;
  std::atomic<int> nworkers{0};
  // A slot changes when the monitor puts a spare in a stuck worker's place.
  std::atomic<Worker *> workers[kMaxWorkers];
  std::atomic<int> spawned_workers{0};
  // The global queue: tasks spawned or yielded outside a worker's own
  // queue, and what a full worker queue sheds.
  TaskQueue global;
  // Tasks made runnable outside the workers: by the network poller when
  // the monitor polls, by timers, by threads that are not workers. Apart
  // from the global queue, which may hold thousands of spawned tasks: a
  // task woken by an event should not wait behind them all (an acceptor
  // behind thousands of clients lets the listen backlog overflow, and
  // each dropped connection waits a second for its SYN to be resent).
  TaskQueue woken;
  std::atomic<int> nidle{0};
  // Workers looking for work before they sleep (Go's spinning Ms): while
  // one spins, making a task runnable need not wake anyone.
  std::atomic<int> nspinning{0};
  // Worker threads alive (spares and retired ones included), and bound
  // tasks running now: for scheduler_quiet().
  std::atomic<int> worker_threads{0};
  std::atomic<int> bound_running{0};
  // Retired workers whose threads still run (the monitor's own list; a
  // forked child starts it again).
  Worker *retired[kMaxWorkers];
  int nretired = 0;
};

Scheduler g_sched;
std::atomic<int> g_requested_workers{0};
void start_rest();

// Not through syscall(), which the runtime interposes (raw_syscall.h).
long futex(std::atomic<int> *word, int op, int val) {
  return raw_syscall(SYS_futex, reinterpret_cast<long>(word), op, val, 0, 0,
                     0);
}

uint32_t fastrand(Worker *w) {
  uint32_t x = w->rand_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return w->rand_state = x;
}

int default_workers() {
  if (int n = config().workers) // COPYSTACK_WORKERS
    return n;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
  return 1;
}

// ---- the shared queues ---------------------------------------------------

uint64_t TaskQueue::put_chain(Task *first, Task *last, uint64_t n) {
  last->next = nullptr;
  std::lock_guard<std::mutex> g(lock);
  if (tail)
    tail->next = first;
  else
    head = first;
  tail = last;
  len.fetch_add(n);
  uint64_t total = puts.load(std::memory_order_relaxed) + n;
  puts.store(total, std::memory_order_relaxed);
  return total;
}

// Takes one task, and moves up to `batch` more into w's queue.
Task *TaskQueue::get(Worker *w, uint32_t batch) {
  if (len.load(std::memory_order_relaxed) == 0)
    return nullptr;
  std::lock_guard<std::mutex> g(lock);
  Task *t = head;
  if (!t)
    return nullptr;
  head = t->next;
  if (!head)
    tail = nullptr;
  len.fetch_sub(1);
  uint64_t n = 1;
  if (w) {
    uint32_t h = w->head.load(std::memory_order_acquire);
    uint32_t tl = w->tail.load(std::memory_order_relaxed);
    while (batch-- && head && tl - h < Worker::kQueue) {
      Task *x = head;
      head = x->next;
      if (!head)
        tail = nullptr;
      len.fetch_sub(1);
      w->ring[tl % Worker::kQueue].store(x, std::memory_order_relaxed);
      ++tl;
      ++n;
    }
    w->tail.store(tl, std::memory_order_release);
  }
  takes.store(takes.load(std::memory_order_relaxed) + n,
              std::memory_order_relaxed);
  return t;
}

void global_put(Task *t) { g_sched.global.put(t); }

// ---- a worker's own queue --------------------------------------------------

void runq_put(Worker *w, Task *t) {
  for (;;) {
    uint32_t h = w->head.load(std::memory_order_acquire);
    uint32_t tl = w->tail.load(std::memory_order_relaxed);
    if (tl - h < Worker::kQueue) {
      w->ring[tl % Worker::kQueue].store(t, std::memory_order_relaxed);
      w->tail.store(tl + 1, std::memory_order_release);
      return;
    }
    // Full: move half of it, and t, to the global queue. The moved half
    // is the oldest, and it runs before the half left here (look(),
    // global_first_until): tasks keep their order across the overflow.
    // Without that rule the shed tasks waited until this queue ran dry,
    // which a server that keeps it full never lets happen (a thread-per-
    // connection server with a condition-variable work queue, 1,000
    // connections on one worker: every connection had a request wait
    // over 50 ms, p99 80 ms against Go's 20).
    uint32_t n = (tl - h) / 2;
    Task *batch[Worker::kQueue / 2 + 1];
    for (uint32_t i = 0; i < n; ++i)
      batch[i] = w->ring[(h + i) % Worker::kQueue].load(
          std::memory_order_relaxed);
    if (!w->head.compare_exchange_strong(h, h + n,
                                         std::memory_order_acq_rel))
      continue;
    // One lock for the lot: a spawning loop sheds 129 tasks at a time.
    batch[n] = t;
    for (uint32_t i = 0; i < n; ++i)
      batch[i]->next = batch[i + 1];
    // t, the newest, waits behind the tasks left here.
    w->global_first_until.store(
        g_sched.global.put_chain(batch[0], t, n + 1) - 1,
        std::memory_order_relaxed);
    return;
  }
}

Task *runq_get(Worker *w) {
  for (;;) {
    uint32_t h = w->head.load(std::memory_order_acquire);
    uint32_t tl = w->tail.load(std::memory_order_relaxed);
    if (tl == h)
      return nullptr;
    Task *t = w->ring[h % Worker::kQueue].load(std::memory_order_relaxed);
    if (w->head.compare_exchange_weak(h, h + 1, std::memory_order_acq_rel))
      return t;
  }
}

// Takes tasks from the head of victim's queue into batch, with a
// compare-and-swap on its head (its owner and other thieves may be taking
// too): half of them, rounded up, or all. Returns how many; 0 when empty.
uint32_t runq_grab(Worker *victim, Task **batch, bool all) {
  for (;;) {
    uint32_t h = victim->head.load(std::memory_order_acquire);
    uint32_t tl = victim->tail.load(std::memory_order_acquire);
    uint32_t n = tl - h;
    if (n == 0)
      return 0;
    if (n > Worker::kQueue)
      continue; // inconsistent snapshot
    if (!all)
      n = n - n / 2;
    for (uint32_t i = 0; i < n; ++i)
      batch[i] = victim->ring[(h + i) % Worker::kQueue].load(
          std::memory_order_relaxed);
    if (victim->head.compare_exchange_strong(h, h + n,
                                             std::memory_order_acq_rel))
      return n;
  }
}

// Steals half of victim's queue into w's; returns one task to run. The
// victim's runnext only when asked: it is usually the partner of the task
// the victim runs now, about to run there (Go waits a few microseconds
// before taking it, for the same reason).
Task *runq_steal(Worker *w, Worker *victim, bool take_runnext) {
  Task *batch[Worker::kQueue];
  uint32_t n = runq_grab(victim, batch, false);
  if (n == 0) {
    if (!take_runnext)
      return nullptr;
    Task *t = victim->runnext.load(std::memory_order_acquire);
    if (t && victim->runnext.compare_exchange_strong(t, nullptr))
      return t;
    return nullptr;
  }
  for (uint32_t i = 1; i < n; ++i)
    runq_put(w, batch[i]);
  return batch[0];
}

// A spare worker, before its thread starts, takes over a stuck worker's
// runnext and queue in their order (Go's handoffp passes the P with its run
// queue). Not to the global queue: that may hold thousands of spawned
// tasks, and a task readied moments ago (an acceptor woken by the poller)
// would wait behind them all. The stuck thread may still take from its
// queue; it puts nothing more in it (own_worker).
// A retired worker's runnext and queue, to the global queue; whether
// there were any.
bool shed_queue(Worker *w) {
  bool any = false;
  if (Task *t = w->runnext.exchange(nullptr, std::memory_order_acq_rel)) {
    global_put(t);
    any = true;
  }
  Task *batch[Worker::kQueue];
  while (uint32_t n = runq_grab(w, batch, true)) {
    for (uint32_t i = 0; i + 1 < n; ++i)
      batch[i]->next = batch[i + 1];
    g_sched.global.put_chain(batch[0], batch[n - 1], n);
    any = true;
  }
  return any;
}

void inherit_queue(Worker *spare, Worker *stuck) {
  spare->runnext.store(stuck->runnext.exchange(nullptr),
                       std::memory_order_relaxed);
  Task *batch[Worker::kQueue];
  uint32_t n = runq_grab(stuck, batch, true);
  uint32_t tl = spare->tail.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i)
    spare->ring[(tl + i) % Worker::kQueue].store(batch[i],
                                                 std::memory_order_relaxed);
  spare->tail.store(tl + n, std::memory_order_release);
  // Tasks the stuck worker shed to the global queue stay ahead of these.
  spare->global_first_until.store(
      stuck->global_first_until.load(std::memory_order_relaxed),
      std::memory_order_relaxed);
}

bool has_work() {
  if (g_sched.global.len.load() > 0 || g_sched.woken.len.load() > 0)
    return true;
  for (int i = 0; i < g_sched.nworkers; ++i) {
    Worker *v = g_sched.workers[i].load(std::memory_order_acquire);
    if (!v)
      return true; // the scheduler is starting
    if (v->tail.load(std::memory_order_acquire) !=
            v->head.load(std::memory_order_acquire) ||
        v->runnext.load(std::memory_order_acquire))
      return true;
  }
  return false;
}

// Wakes one idle worker, if any (Go's wakep). The fence pairs with the
// idle registration in find_work: either the waker sees the worker idle,
// or the worker sees the new task. A task readied on the calling worker's
// own queue needs no fence (nor has Go's ready()): if the race is lost,
// the worker runs the task itself once its current task blocks, yields or
// is preempted; the wake-up only buys parallelism. A task anywhere else
// (the shared queues) could be left with nobody to run it.
// Returns false when every worker is busy (none idle or spinning).
// Wakes w if its sleep word says it sleeps (or is about to). One asleep
// in epoll_wait is not on its futex: nor will it wait there once
// interrupted, its word being 0.
bool wake_sleeper(Worker *w) {
  if (w->sleep_word.exchange(0) != 1)
    return false;
  if (!netpoll_wake(&w->sleep_word))
    futex(&w->sleep_word, FUTEX_WAKE_PRIVATE, 1);
  return true;
}

bool wake_one(bool own_queue = false) {
  if (!own_queue)
    std::atomic_thread_fence(std::memory_order_seq_cst);
  if (g_sched.nspinning.load() > 0)
    return true;
  if (g_sched.nidle.load() == 0)
    return false;
  // The worker asleep in epoll_wait first: awake, it polls without
  // blocking between tasks, and takes the tasks a descriptor readies on
  // its own thread. Another one woken instead leaves those to a wake-up
  // from one thread to another through the kernel (a pipe's reader ran
  // 60 us after a write with two idle workers, Go 13: Go's poller and
  // timers belong to the thread that sleeps in epoll_wait).
  if (std::atomic<int> *word = netpoll_sleeper())
    if (word->exchange(0) == 1) {
      if (!netpoll_wake(word)) // it left epoll_wait since, to sleep again
        futex(word, FUTEX_WAKE_PRIVATE, 1);
      return true;
    }
  for (int i = 0; i < g_sched.nworkers; ++i) {
    Worker *w = g_sched.workers[i].load(std::memory_order_acquire);
    if (w->idle.load() && wake_sleeper(w))
      return true;
  }
  return true; // idle ones are waking already
}

// A task woke outside the workers (a timer, the poller, another thread)
// and every worker is busy: one of them yields at its next check or poll,
// and takes the woken task first (look()). Without it the task waited for
// the busy one's time slice to end (a pipe read beside a busy task on one
// worker: 11.5 ms late on average, Go 10.5).
void wake_for_woken() {
  if (wake_one())
    return;
  int n = g_sched.nworkers;
  for (int i = 0; i < n; ++i) {
    Worker *w = g_sched.workers[i].load(std::memory_order_acquire);
    Thread *th = w->thread.load(std::memory_order_acquire);
    if (th && preempt_now(th))
      return;
  }
}

// The monitor's second chance for woken tasks (monitor thread only). A
// wake's request to yield can find the busy worker between two tasks (in
// look() or execute(), its limit 0): the request is lost and the task it
// then runs keeps the worker for a whole slice, with a woken task waiting
// (a 10 ms sleep beside four busy tasks on one worker: p99 11 ms late).
// A woken task still queued after a whole tick with no take from the
// queue asks again.
void woken_backstop() {
  static uint64_t seen_takes = ~uint64_t(0);
  uint64_t takes = g_sched.woken.takes.load(std::memory_order_relaxed);
  bool waited = g_sched.woken.len.load() > 0 && takes == seen_takes;
  seen_takes = takes;
  if (waited)
    wake_for_woken();
}

// One look at every source of work, in Go's order.
Task *look(Worker *w, bool take_runnext) {
  ++w->ticks;
  // Now and then the shared queues first, so that they are not starved:
  // each has a turn of its own in every 61 ticks, and takes the other's
  // when it is empty.
  uint64_t turn = w->ticks % 61;
  if (turn == 0 || turn == 30) {
    TaskQueue &first = turn == 0 ? g_sched.woken : g_sched.global;
    TaskQueue &second = turn == 0 ? g_sched.global : g_sched.woken;
    if (Task *t = first.get(w, 1))
      return t;
    if (Task *t = second.get(w, 1))
      return t;
  }
  // And this thread's preempted tasks, once their turn has come (the
  // global queue handed out what it held when they stopped): a task that
  // keeps this worker's own queue full does not starve them.
  if (turn == 15 || turn == 45)
    if (Task *t = preempted_take(false))
      return t;
  if (Task *t = w->runnext.exchange(nullptr, std::memory_order_acq_rel))
    return t;
  // A task a timer, the poller or another thread woke runs before this
  // worker's queue and the tasks it preempted, as a goroutine a timer wakes
  // goes to its P's runnext: within a time slice of its wake-up, however
  // many tasks are busy (it waited behind every busy one: 37 ms for a
  // 10 ms sleep beside four busy tasks on one worker, Go 10 ms).
  if (Task *t = g_sched.woken.get(w, 1))
    return t;
  if (w->global_first_until.load(std::memory_order_relaxed) >
      g_sched.global.takes.load(std::memory_order_relaxed)) {
    if (Task *t = g_sched.global.get(w, 0))
      return t;
    // Taken by others meanwhile.
    w->global_first_until.store(0, std::memory_order_relaxed);
  }
  if (Task *t = runq_get(w))
    return t;
  if (Task *t = preempted_take(false))
    return t;
  // Its own queue is dry: a batch from the shared queues, from each in
  // turn, so that neither waits behind the other's backlog.
  TaskQueue *shared[2] = {&g_sched.woken, &g_sched.global};
  if (w->refill_global)
    std::swap(shared[0], shared[1]);
  for (TaskQueue *q : shared)
    if (Task *t = q->get(w, Worker::kQueue / 2)) {
      w->refill_global = q == &g_sched.woken;
      return t;
    }
  if (Task *t = preempted_take(true))
    return t;
  int n = g_sched.nworkers;
  int start = static_cast<int>(fastrand(w) % n);
  for (int i = 0; i < n; ++i) {
    Worker *v = g_sched.workers[(start + i) % n].load(
        std::memory_order_acquire);
    if (v != w)
      if (Task *t = runq_steal(w, v, take_runnext))
        return t;
  }
  return nullptr;
}

// How long a worker with nothing to do keeps looking before it sleeps:
// long enough to catch the next task of a spawning loop or a ping-pong
// without a futex round trip, short enough not to burn an idle core.
constexpr int kSpinRounds = 64;

Task *find_work(Worker *w) {
  for (;;) {
    if (w->retired.load(std::memory_order_relaxed)) {
      // Runnable anywhere: to the global queue, for the workers the monitor
      // watches. Only the tasks preempted here stay (they resume on the
      // thread they stopped on), each asked to yield on every monitor tick.
      if (shed_queue(w))
        wake_one();
      return preempted_take(true); // null: the thread exits
    }
    if (Task *t = look(w, false))
      return t;
    if (netpoll_inject())
      continue;
    // Spin only while spinners are fewer than half the busy workers (Go's
    // rule): spinning must not take the CPU from the threads making work.
    int busy = g_sched.nworkers - g_sched.nidle.load();
    if (2 * g_sched.nspinning.load() < busy) {
      g_sched.nspinning.fetch_add(1);
      Task *found = nullptr;
      for (int i = 0; i < kSpinRounds && !found; ++i) {
        for (int k = 0; k < 32; ++k)
          cpu_relax();
        // A victim's runnext only in the second half: by then its owner
        // has had time to run it.
        found = look(w, i >= kSpinRounds / 2);
        // Tasks waiting on the network count as work about to come.
        if (!found && netpoll_inject())
          found = look(w, false);
      }
      // The last spinner to find work wakes another, so that one stays
      // available while work keeps coming (Go's resetspinning).
      if (g_sched.nspinning.fetch_sub(1) == 1 && found)
        wake_one();
      if (found)
        return found;
    }
    // Nothing: register as idle, then look once more, then sleep. A task
    // made runnable after the look sees this worker idle and wakes it.
    w->sleep_word.store(1);
    w->idle.store(true);
    g_sched.nidle.fetch_add(1);
    // Retired meanwhile (the monitor took it for stuck in a foreign call
    // that had just returned): it must end, not sleep, or it counts as a
    // worker for ever and the deadlock check never reports (it hung
    // stack_compact_parked.c's deadlock run in a clean-clone CI). The
    // monitor stores retired and then wakes a sleeper: one of the two
    // sees the other.
    if (has_work() || w->retired.load()) {
      w->idle.store(false);
      g_sched.nidle.fetch_sub(1);
      w->sleep_word.store(0);
      continue;
    }
    check_deadlock(); // this may have been the last worker with work
    timers_flush();
    if (!netpoll_sleep(&w->sleep_word))
      while (w->sleep_word.load() == 1)
        futex(&w->sleep_word, FUTEX_WAIT_PRIVATE, 1);
    w->idle.store(false);
    g_sched.nidle.fetch_sub(1);
  }
}

// ---- running a task ----------------------------------------------------------

// How a traced run that did not finish ended (sched/trace.h).
trace::RunEnd run_end(void (*then)(void *)) {
  return then == __copystack_preempt_then || then == __copystack_signal_then
             ? trace::kPreempted
         : then == __copystack_yield_then ? trace::kYielded
                                          : trace::kParked;
}

// A run that began before tracing did, recorded from the trace's start to
// now, before its park's then() step (the run's reason is the one the
// task gave; a reason then() gives is not in it).
__attribute__((noinline)) void late_run(Task *t, trace::RunEnd how) {
  trace::run(t->id, t->spawn_pc, 0, trace::now(), how,
             t->wait_reason.load(std::memory_order_relaxed));
}

// The C++ runtime's exception state is per thread: the Itanium C++ ABI's
// __cxa_eh_globals, whose first two fields (libstdc++'s and libc++abi's
// alike) are the stack of caught exceptions (std::current_exception and
// `throw;` read it) and the count of exceptions thrown and not yet caught
// (std::uncaught_exceptions). A task that parks inside a catch block, or
// in a destructor that an exception's unwinding runs, must find its own
// when it resumes, on whatever thread, and the tasks that ran on the
// thread meanwhile must not see it: for each run the worker puts the
// task's state in the thread's and keeps its own aside, and takes it back
// after. Weak: a program without the C++ runtime (or, statically linked,
// one that never throws) has no such state.
extern "C" void *cxa_get_globals() __asm__("__cxa_get_globals")
    __attribute__((weak));

struct EhGlobals {
  void *caught;
  unsigned int uncaught;
};

struct EhSwap {
  EhGlobals *thread = nullptr; // the thread's (null: no C++ runtime)
  void *caught = nullptr;      // what it held before the task ran
  unsigned int uncaught = 0;

  explicit EhSwap(Task *t) {
    if (!&cxa_get_globals)
      return;
    thread = static_cast<EhGlobals *>(cxa_get_globals());
    caught = thread->caught;
    uncaught = thread->uncaught;
    thread->caught = t->eh_caught;
    thread->uncaught = t->eh_uncaught;
  }
  void back(Task *t) const {
    if (!thread)
      return;
    t->eh_caught = thread->caught;
    t->eh_uncaught = thread->uncaught;
    thread->caught = caught;
    thread->uncaught = uncaught;
  }
};

// Switches to t on this thread until it parks or finishes; then runs what
// it asked to be run once its context was saved. Returns whether it
// finished: after a park, t belongs to whoever readies it (it may already
// be running elsewhere, or be gone), so the caller must not look at it.
// kObserved: an execution trace or the block profile records (observe.h);
// the other instance has none of their code.
template <bool kObserved>
__attribute__((always_inline)) inline bool execute_as(Task *t) {
  Thread &th = __copystack_thread;
  vg::thread_runs_tasks();
  begin_running(t); // t->stack is stable from here
  if (t->compacted) // parked long: its frames wait in a heap block
    expand_compacted(t);
  resume_preempted(t);
  if (t->blocked) // parked while the block profile recorded
    profile::resumed(t);
  __atomic_store_n(&th.run_seq, th.run_seq + 1, __ATOMIC_RELAXED);
  th.task = t;
  th.task_lo = t->stack.lo;
  th.task_hi = t->stack.hi;
  th.task_limit = limit_for(t->stack);
  load_pins(th, t->pins);
  san::enter_task(t, t->stack.lo, t->stack.hi);
  // Traced: the run is recorded once the task is suspended, after then()
  // (which may give the wait reason), with the time it stopped; a run in
  // progress when tracing started is recorded from the trace's start
  // (started 0; in the instance without observers, before then(), by
  // late_run).
  uint64_t started = 0, stopped = 0;
  if (kObserved && trace::on())
    started = trace::now();
  const EhSwap eh(t);
  __copystack_switch(&th.sched_sp, t->sp, th.task_limit);
  eh.back(t);
  const bool traced = kObserved && trace::on();
  if (traced)
    stopped = trace::now();
  san::leave_task(t, t->done);
  // The task's stack may have moved while it ran (growth.cc keeps
  // t->stack current).
  t->pins = save_pins(th);
  load_pins(th, PinState{});
  if (t->done) {
    if (traced)
      trace::run(t->id, t->spawn_pc, started, stopped, trace::kDone);
    else if (!kObserved && observed())
      late_run(t, trace::kDone);
    th.task = nullptr;
    return true;
  }
  void (*fn)(void *) = th.park_fn; // set until fn has run (fork.cc)
  void *arg = th.park_arg;
  CS_CHECK(fn, "a task left its worker without parking or finishing");
  start_rest(); // main's first park: the others can have work now
  // Stress mode moves every stack that parks, through the collector's
  // relocation of a suspended stack (and halves it when it qualifies), or,
  // every other time, compacts it (unless the policy says not to), to be
  // expanded when it runs again.
  if (config().stress) {
    if (t->copies % 2 && config().compact.load() && can_compact(t))
      compact_suspended(t, false);
    else
      shrink_suspended(t, true, false);
  }
  const uint64_t id = kObserved ? t->id : 0;
  const uintptr_t spawn_pc = kObserved ? t->spawn_pc : 0;
  const uint8_t reason =
      kObserved ? t->wait_reason.load(std::memory_order_relaxed) : 0;
  if (kObserved && profile::recording(profile::kBlock) &&
      run_end(fn) == trace::kParked)
    profile::parked(t);
  if (!kObserved && observed())
    late_run(t, run_end(fn));
  // Suspended before then() runs: once it has, whoever readies the task may
  // run it, and the collector may move its stack.
  end_running(t);
  timers_flush(); // what the task before registered; fn's wait for later
  fn(arg); // th.task is the parking task while this runs
  th.task = nullptr;
  // The park is over: t is parked, or runnable in a queue, or another
  // thread's already; a fork may go on (fork.cc).
  __atomic_store_n(&th.park_fn, nullptr, __ATOMIC_RELEASE);
  if (traced)
    trace::run(id, spawn_pc, started, stopped, run_end(fn), reason);
  return false;
}

bool execute(Task *t) {
  return observed() ? execute_as<true>(t) : execute_as<false>(t);
}

void finish(Task *t) {
  counter_add(Counter::kLiveTasks, -1);
  destroy_task(t);
}

// The program's main task (copystack_main), if it runs on the scheduler.
std::atomic<Task *> g_main_task{nullptr};

// Go's runtime.main: when main returns, the program ends, whatever other
// tasks are doing. exit() runs here, on a worker's own stack.
[[noreturn]] void main_finished(Task *t) {
  exit(static_cast<int>(t->result));
}

void *worker_main(void *arg) {
  auto *w = static_cast<Worker *>(arg);
  while (w->gate.load(std::memory_order_acquire))
    futex(&w->gate, FUTEX_WAIT_PRIVATE, 1);
  RuntimeThread counted;
  // For ps, gdb, perf and traces; not the process's initial thread (worker
  // 0 under copystack_main), which keeps the program's name.
  if (syscall(SYS_gettid) != getpid()) {
    char name[16];
    snprintf(name, sizeof name, "copystack-w%d", w->id);
    pthread_setname_np(pthread_self(), name);
  }
  g_sched.worker_threads.fetch_add(1);
  Thread &th = __copystack_thread;
  th.worker = w;
  prepare_signal_stack();
  preempt_signal_prepare_thread(); // the thread's id too: before the store
  w->thread.store(&th, std::memory_order_release);
  prepare_verify_thread();
  for (;;) {
    Task *t = w->first ? w->first : find_work(w);
    w->first = nullptr;
    if (!t)
      break; // retired, and nothing of its own left
    if (execute(t)) {
      if (t == g_main_task.load(std::memory_order_relaxed))
        main_finished(t);
      finish(t);
    }
  }
  w->thread_lock.lock();
  w->thread.store(nullptr, std::memory_order_release);
  w->thread_lock.unlock();
  th.worker = nullptr;
  vg::thread_done();
  g_sched.worker_threads.fetch_sub(1);
  return nullptr;
}

// 0, or the error pthread_create gave.
int try_start_worker_thread(Worker *w) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // The worker's own stack runs foreign code for its tasks: give it what a
  // main thread has.
  pthread_attr_setstacksize(&attr, 8 << 20);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t tid;
  int rc = pthread_create(&tid, &attr, worker_main, w);
  pthread_attr_destroy(&attr);
  return rc;
}

void start_worker_thread(Worker *w) {
  if (int rc = try_start_worker_thread(w))
    fatal("cannot start a worker thread: %s", strerror(rc));
}

void *monitor_main(void *);

// Set while copystack_main starts the scheduler: the calling thread will
// serve worker 0 itself.
bool g_caller_is_worker0 = false;

void start() {
  int n = g_requested_workers.load();
  if (n <= 0)
    n = default_workers();
  g_sched.nworkers = n;
  for (int i = 0; i < n; ++i) {
    auto *w = new Worker;
    w->id = i;
    w->rand_state = 0x9e3779b9u * static_cast<uint32_t>(i + 1);
    g_sched.workers[i].store(w, std::memory_order_release);
  }
  install_quit_handler();
  if (!g_caller_is_worker0)
    start_rest();
}

// The threads of the scheduler but the caller's. With copystack_main, the
// initial thread is worker 0 and runs main; the other workers and the
// monitor start when main first spawns a task or parks (then there is
// something for them: tasks to run, a wait to time or watch, a deadlock to
// see). Until then a program is what it would be without copystack, one
// thread, and the C library keeps its single-thread fast paths (glibc's
// allocator and stdio take no locks before a second thread starts, and
// never again after: in Lua's interpreter, malloc, _int_malloc and
// _int_free ran 10.1 M instructions more, 1% of the run, with the workers
// started). Nothing is lost meanwhile: with one task
// running there is nothing to preempt it for, no worker to replace and no
// deadlock; collections shrink only stacks that parked.
void start_rest() {
  g_sched.rest.call([] {
    for (int i = g_caller_is_worker0 ? 1 : 0; i < g_sched.nworkers; ++i)
      start_worker_thread(g_sched.workers[i].load());
    pthread_t tid;
    pthread_create(&tid, nullptr, monitor_main, nullptr);
    pthread_detach(tid);
  });
}

// Go's sysmon. It polls the network when no worker has for 10 ms
// (netpoll.h), asks a task that has held its worker for a time slice to
// yield (preempt.h), and replaces stuck workers: a worker that has been in
// the same foreign call for two looks in a row (1-2 ms) while tasks wait is
// stuck, and a spare worker thread takes its place until it comes back.
// The spare takes the stuck worker's slot and queues. The stuck thread's
// task yields when its call returns; the thread gives anything put in its
// queue while it was being replaced to the global queue, runs the tasks
// that were preempted on it until each parks or ends (preempt_retired),
// then exits. What its tasks make runnable meanwhile goes to the woken
// queue.
constexpr uint64_t kHandoffStreakNs = 20 * 1000 * 1000;
// Said once: a spare worker's thread could not be started.
std::atomic<bool> g_spare_failed{false};
constexpr int kMaxHandoffStreak = 2;

// A retired thread's task, and each task preempted on it, is asked to
// yield on every tick: they resume only there, and no slot's watch sees
// that thread any more. Without this, one busy task there held the others
// forever (a replaced worker's thread ran its task, which spun, and the
// tasks preempted there earlier never ran again). The task that was in the
// foreign call yields when the call returns (preempt.h).
void preempt_retired() {
  int kept = 0;
  for (int i = 0; i < g_sched.nretired; ++i) {
    Worker *w = g_sched.retired[i];
    w->thread_lock.lock();
    Thread *th = w->thread.load(std::memory_order_acquire);
    if (th)
      preempt_now(th, /*again=*/true);
    w->thread_lock.unlock();
    if (th)
      g_sched.retired[kept++] = w;
  }
  g_sched.nretired = kept;
}

void *monitor_main(void *) {
  RuntimeThread counted;
  pthread_setname_np(pthread_self(), "copystack-mon");
  for (;;) {
    // Every 1 ms while any worker runs; every 10 ms while all are idle
    // (nothing can be stuck then), so an idle program does not wake often.
    bool all_idle = g_sched.nidle.load() == g_sched.nworkers;
    struct timespec ts = {0, (all_idle ? 10 : 1) * 1000 * 1000};
    monitor_ticks_at(now_ns() + ts.tv_nsec);
    nanosleep(&ts, nullptr);
    timers_flush();
    maybe_collect();
    check_deadlock();
    uint64_t now = now_ns();
    netpoll_monitor(now);
    woken_backstop();
    preempt_retired();
    for (int i = 0; i < g_sched.nworkers; ++i) {
      Worker *w = g_sched.workers[i].load(std::memory_order_acquire);
      Thread *th = w->thread.load(std::memory_order_acquire);
      if (!th)
        continue;
      preempt_watch(i, th, now);
      uint64_t seq = __atomic_load_n(&th->foreign_seq, __ATOMIC_RELAXED);
      uintptr_t in = __atomic_load_n(&th->foreign_sp, __ATOMIC_RELAXED);
      if (!in || seq != w->seen_seq) {
        w->seen_seq = seq;
        w->stuck_polls = 0;
        continue;
      }
      if (++w->stuck_polls < (2 << w->handoff_streak) || !has_work() ||
          g_sched.nretired == kMaxWorkers)
        continue;
      // A spare takes the slot, and what waited in the stuck worker's
      // queues.
      auto *spare = new Worker;
      spare->id = w->id;
      // Seeded from the slot and the spare count, not from the stuck
      // worker's generator: that one belongs to its thread, still running.
      spare->rand_state =
          ((uint32_t(w->id + 1) * 2654435761u) ^
           (uint32_t(g_sched.spawned_workers.load() + 1) * 40503u)) |
          1;
      // A spare that gets stuck again right away (the tasks it runs all
      // wait for the same kernel lock: socket() while another thread grows
      // the descriptor table waits out an RCU grace period) is replaced
      // only after twice as long each time, up to 8 ms, so that such a
      // stall does not start a thread every 2 ms.
      spare->handoff_streak =
          now - w->handoff_ns < kHandoffStreakNs
              ? std::min(w->handoff_streak + 1, kMaxHandoffStreak)
              : 0;
      spare->handoff_ns = now;
      // Its thread first, held at the gate: when the OS will not start one
      // (out of memory or of mappings for its stack), the stuck worker
      // keeps its slot and the monitor tries again later (Go's runtime
      // throws there instead); its tasks wait for the foreign call
      // meanwhile.
      spare->gate.store(1, std::memory_order_relaxed);
      if (int rc = try_start_worker_thread(spare)) {
        if (!g_spare_failed.exchange(true))
          report("cannot start a spare worker thread for a worker stuck in "
                 "a foreign call (%s); its tasks wait for the call, and "
                 "the monitor tries again later", strerror(rc));
        delete spare;
        w->stuck_polls = 0;
        continue;
      }
      w->retired.store(true);
      // Its thread may have come back from the call and gone to sleep in
      // find_work since the monitor looked: woken, it sees retired and
      // ends.
      wake_sleeper(w);
      // Never freed: its thread may still look at it.
      san::never_freed(w);
      g_sched.retired[g_sched.nretired++] = w;
      g_sched.workers[i].store(spare, std::memory_order_release);
      inherit_queue(spare, w);
      g_sched.spawned_workers.fetch_add(1);
      spare->gate.store(0, std::memory_order_release);
      futex(&spare->gate, FUTEX_WAKE_PRIVATE, 1);
      wake_one();
    }
  }
  return nullptr;
}

} // namespace

void wake_idle_for_poller() {
  if (g_sched.nidle.load() > 0)
    wake_one();
}

void start_scheduler() { g_sched.started.call(start); }

void scheduler_fork_lock() {
  g_sched.global.lock.lock();
  g_sched.woken.lock.lock();
}
void scheduler_fork_unlock() {
  g_sched.woken.lock.unlock();
  g_sched.global.lock.unlock();
}

// The task whose run on this thread bound task t's run interrupted
// (BoundRun::saved; copystack_run from a task), or null: t's chain,
// without a thread-local of its own (libcopystack.so's static TLS stays
// under 256 bytes: shared_library_dlopen_plain_host.c).
static const Task *interrupted_by(const Task *t) {
  static_assert(offsetof(BoundRun, runner) == 0, "a bound task's run");
  return t->runner ? reinterpret_cast<const BoundRun *>(t->runner)->saved.task
                   : nullptr;
}

void scheduler_after_fork_child() {
  if (!g_sched.started.done())
    return;
  Thread &th = __copystack_thread;
  Worker *me = th.worker;
  if (me)
    preempt_signal_prepare_thread(); // its id, cleared by pthread_sync's
  g_sched.worker_threads.store(me ? 1 : 0);
  // The bound runs on this thread, nested ones too (copystack_run from a
  // bound task): each one's run_bound subtracts its own when it returns.
  int bound = 0;
  for (const Task *c = th.task; c && c->runner; c = interrupted_by(c))
    ++bound;
  g_sched.bound_running.store(bound);
  g_sched.nidle.store(0);
  g_sched.nspinning.store(0);
  // Only this thread survived: if it is a retired worker, the only one.
  g_sched.nretired = 0;
  if (me && me->retired.load()) {
    me->thread_lock.word().store(0); // the parent's monitor may have held it
    g_sched.retired[g_sched.nretired++] = me;
  }
  // Every slot but the forking thread's gets a new thread; what was queued
  // on it is still there. Tasks that were running on the other threads
  // are lost with them.
  for (int i = 0; i < g_sched.nworkers; ++i) {
    Worker *w = g_sched.workers[i].load();
    w->idle.store(false);
    w->sleep_word.store(0);
    w->stuck_polls = 0;
    if (w == me)
      continue;
    w->thread.store(nullptr);
    if (g_sched.rest.done())
      start_worker_thread(w);
  }
  if (g_sched.rest.done()) {
    pthread_t tid;
    pthread_create(&tid, nullptr, monitor_main, nullptr);
    pthread_detach(tid);
  }
}

bool scheduler_quiet() {
  int n = g_sched.nworkers.load();
  return g_sched.nidle.load() == n && g_sched.worker_threads.load() == n &&
         g_sched.bound_running.load() == 0 && !has_work();
}

uint64_t live_tasks() {
  int64_t n = counter_load(Counter::kLiveTasks);
  return n > 0 ? static_cast<uint64_t>(n) : 0; // a sum read mid-update
}

Task *parking_task() { return __copystack_thread.task; }

SignalBuffers *worker_signal_buffers(Worker *w) { return &w->signal; }

int current_worker_slot() {
  Worker *w = __copystack_thread.worker;
  return w ? w->id : -1;
}

// Calls f on the Thread of every worker, those in their slots, then the
// ones the monitor replaced while they were stuck in a foreign call, until
// f returns true; returns whether it did. Worker structures are never
// freed; the list is the monitor's, read as it is. A thread's TLS stays
// while its worker's thread_lock is held (worker_main); with try_only a
// lock held elsewhere (maybe by a thread that died) skips that worker.
template <typename F> bool any_worker_thread(bool try_only, F f) {
  const int nslots = g_sched.nworkers;
  const int nretired = __atomic_load_n(&g_sched.nretired, __ATOMIC_RELAXED);
  for (int i = 0; i < nslots + nretired && i < nslots + kMaxWorkers; ++i) {
    Worker *w = i < nslots ? g_sched.workers[i].load(std::memory_order_acquire)
                           : __atomic_load_n(&g_sched.retired[i - nslots],
                                             __ATOMIC_RELAXED);
    if (!w)
      continue;
    if (try_only) {
      if (!w->thread_lock.try_lock())
        continue;
    } else {
      w->thread_lock.lock();
    }
    Thread *th = w->thread.load(std::memory_order_acquire);
    const bool done = th && f(*th);
    w->thread_lock.unlock();
    if (done)
      return true;
  }
  return false;
}

bool in_foreign_call(const Task *t, uintptr_t *caller) {
  *caller = 0;
  // The workers are looked at where a task blocking its worker usually is
  // by the time anyone looks (a replaced one's thread, too); the dump runs
  // in dying processes, so a worker whose lock is held is not waited for.
  return any_worker_thread(true, [&](Thread &th) {
    if (__atomic_load_n(&th.task, __ATOMIC_RELAXED) != t ||
        !__atomic_load_n(&th.foreign_sp, __ATOMIC_RELAXED))
      return false;
    uintptr_t sp, fp;
    if (!foreign_caller(th, caller, &sp, &fp))
      *caller = 0;
    return true;
  });
}

void scheduler_fork_wait_parks() {
  if (!g_sched.started.done())
    return;
  const Thread *me = &__copystack_thread;
  // Each worker's park_fn is read after the flag was stored and every
  // thread fenced (fork.cc); parks begun since wait for the fork.
  any_worker_thread(false, [&](Thread &th) {
    if (&th != me)
      while (__atomic_load_n(&th.park_fn, __ATOMIC_ACQUIRE))
        sched_yield();
    return false;
  });
}

uint64_t shared_queue_puts() {
  return g_sched.global.puts.load(std::memory_order_relaxed) +
         g_sched.woken.puts.load(std::memory_order_relaxed);
}
uint64_t shared_queue_takes() {
  return g_sched.global.takes.load(std::memory_order_relaxed) +
         g_sched.woken.takes.load(std::memory_order_relaxed);
}

// The worker whose queues a task made runnable here goes to: this thread's,
// unless a spare has taken its slot (its queues then drain only when its
// current foreign call returns, which may be never: a task that spawned
// and went back to accept()).
static Worker *own_worker() {
  Worker *w = __copystack_thread.worker;
  return w && !w->retired.load(std::memory_order_relaxed) ? w : nullptr;
}

// The task running on this thread (or parking), for a trace's arrows.
uint64_t current_task_id() {
  const Task *t = __copystack_thread.task;
  return t ? t->id : 0;
}

// A wake-up, for the trace and the block profile (observe.h).
__attribute__((noinline)) void observe_wake(Task *t) {
  trace::wake(t->id, current_task_id());
  if (profile::recording(profile::kBlock))
    profile::woken(t, t->wait_reason.load(std::memory_order_relaxed));
}

void ready(Task *t) {
  if (observed())
    observe_wake(t);
  t->wait_reason.store(kWaitNone, std::memory_order_relaxed);
  if (Runner *r = t->runner) {
    // The runner is the bound thread's, on its stack: whoever wakes the
    // task knows of it through the runtime's own ordering, which TSan does
    // not see (platform/sanitizers.h).
    san::UnseenScope unseen;
    std::lock_guard<std::mutex> g(r->lock);
    r->runnable = true;
    r->cv.notify_one();
    return;
  }
  Worker *w = own_worker();
  if (w) {
    // Run next on this worker; what was there goes to the queue.
    if (Task *old = w->runnext.exchange(t, std::memory_order_acq_rel))
      runq_put(w, old);
    wake_one(true);
  } else {
    g_sched.woken.put(t);
    wake_for_woken();
  }
}

void ready_list(Task *head) {
  Worker *w = own_worker();
  bool queued = false;
  while (Task *t = head) {
    head = t->next;
    t->next = nullptr;
    if (t->runner) {
      ready(t);
      continue;
    }
    if (observed())
      observe_wake(t);
    t->wait_reason.store(kWaitNone, std::memory_order_relaxed);
    if (w)
      runq_put(w, t);
    else
      g_sched.woken.put(t);
    queued = true;
  }
  if (queued && w)
    wake_one();
  else if (queued)
    wake_for_woken();
}

// A new task counts as live from here.
void admit(Task *t) {
  trace::spawn(t->id, current_task_id(), t->spawn_pc);
  san::task_created(t, t->id);
  start_scheduler();
  counter_add(Counter::kLiveTasks, 1);
}

void spawn(Task *t) {
  admit(t);
  start_rest();
  Worker *w = own_worker();
  if (w)
    runq_put(w, t);
  else
    global_put(t);
  // With the fence, though the task is on this worker's own queue: without
  // it spawn and join took 283 ns a task against 226 (Go 213; 9
  // interleaved runs), where ping-pong's ready() gained from dropping it
  // (226 -> 149 ns a round trip).
  wake_one();
}

void run_main(Task *t) {
  g_main_task.store(t);
  bool joined = false;
  g_sched.started.call([&] {
    g_caller_is_worker0 = true;
    start();
    joined = true;
  });
  // This thread serves as worker 0 until the monitor retires it (a foreign
  // call held it up and a spare took its place); or the scheduler was
  // already running (a constructor started tasks). Either way it then has
  // nothing to do but wait for main to end the program. As worker 0 it
  // runs main first, not through a queue another worker would take it
  // from: main starts on the process's initial thread, as the program
  // would without copystack (glibc's main arena serves its allocations,
  // a thread id equal to the process id, until it first parks).
  if (joined) {
    Worker *w0 = g_sched.workers[0].load();
    admit(t);
    w0->first = t;
    worker_main(w0);
  } else {
    spawn(t);
  }
  // Still the runtime's thread: it can wake no task, and the deadlock
  // check must not take it for one of the program's that could.
  RuntimeThread counted;
  for (;;)
    pause();
}

void run_bound(Task *t) {
  BoundRun b;
  run_bound(t, b);
}

bool runs_on_this_thread(const Task *t) {
  for (const Task *c = __copystack_thread.task; c; c = interrupted_by(c))
    if (c == t)
      return true;
  return false;
}

void run_bound(Task *t, BoundRun &b) {
  RuntimeThread counted;
  prepare_signal_stack();
  prepare_verify_thread();
  trace::spawn(t->id, current_task_id(), t->spawn_pc);
  san::task_created(t, t->id);
  t->runner = &b.runner;
  counter_add(Counter::kLiveTasks, 1);
  Thread &th = __copystack_thread;
  b.saved = th;
  b.saved_limit = read_limit();
  th.worker = nullptr; // what this task wakes goes to the woken queue
  for (;;) {
    g_sched.bound_running.fetch_add(1);
    bool finished = execute(t);
    g_sched.bound_running.fetch_sub(1);
    if (finished)
      break;
    check_deadlock(); // the bound task may have been the last to wait
    std::unique_lock<std::mutex> g(b.runner.lock);
    b.runner.cv.wait(g, [&] { return b.runner.runnable; });
    b.runner.runnable = false;
  }
  counter_add(Counter::kLiveTasks, -1);
  th = b.saved;
  write_limit(b.saved_limit);
}

void abandon_bound(Task *t, BoundRun &b) {
  Thread &th = __copystack_thread;
  // The task was running (execute() never saw it leave): its pinned area
  // is the thread's current one.
  t->pins = save_pins(th);
  san::leave_task(t, true);
  counter_add(Counter::kLiveTasks, -1);
  th = b.saved;
  write_limit(b.saved_limit);
  destroy_task(t);
}

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" {

int copystack_set_workers(int n) {
  if (n < 1 || n > kMaxWorkers)
    fatal("copystack_set_workers(%d): from 1 to %d workers", n, kMaxWorkers);
  // Before the scheduler starts the count is only a request; once it runs,
  // the workers are fixed (the scheduler does not add or retire workers).
  static std::mutex lock;
  std::lock_guard<std::mutex> g(lock);
  if (int running = g_sched.nworkers.load()) {
    if (n != running)
      fatal("copystack_set_workers(%d): the scheduler is already running "
            "with %d workers, and the count cannot change once it runs; set "
            "it before the first task starts (with the drivers, main is the "
            "first task: use COPYSTACK_WORKERS=%d)",
            n, running, n);
    return running;
  }
  int previous = g_requested_workers.exchange(n);
  return previous > 0 ? previous : default_workers();
}

int copystack_workers(void) {
  if (g_sched.nworkers)
    return g_sched.nworkers;
  int n = g_requested_workers.load();
  return n > 0 ? n : default_workers();
}

// sched_yield in instrumented code (io_calls.c): whether the caller, at
// `here` on its stack, is a task that may yield to the tasks waiting to
// run (there are some). Otherwise the OS's sched_yield serves: it lets
// the other threads run, and, with nothing queued, no task waits behind
// it (a spin loop's sched_yield, on a loaded machine, took the worker long
// enough for the monitor to hand its tasks to a spare).
int __copystack_yield_parks(const void *here) {
  const Thread &th = __copystack_thread;
  const auto at = reinterpret_cast<uintptr_t>(here);
  return th.task && !th.task->runner && at >= th.task_lo &&
         at < th.task_hi && has_work();
}

int __copystack_os_yield(void) { return sched_yield(); }

void __copystack_yield_then(void *) {
  Task *t = parking_task();
  if (t->runner) {
    ready(t); // a bound task runs only on its own thread
    return;
  }
  // To the back of the global queue, not this worker's runnext: the others
  // waiting run first.
  global_put(t);
  wake_one();
}

[[noreturn]] void __copystack_park_misuse(void (*then)(void *)) {
  if (!__copystack_thread.task)
    outside_task(then == __copystack_yield_then   ? "copystack_yield"
                 : then == __copystack_sleep_then ? "copystack_sleep_ns"
                 : then == __copystack_select_unlock
                     ? "copystack_select"
                     : "a channel, wait group or mutex operation");
  fatal("a task tried to park (block on a channel, wait group, mutex, "
        "sleep or yield) from code running on the thread's own stack: a "
        "foreign call, a callback from one, or code built without the "
        "plugin. Blocking needs the task's own stack");
}

} // extern "C"
