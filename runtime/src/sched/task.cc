// task.cc: creating and destroying tasks; the slabs every task structure
// lives in, and the descriptor debuggers find them by.
#include "platform/split_stack_notes.h"
#include "platform/thread_heap.h"
#include "sched/task.h"
#include "core/copy.h"
#include "sched/collect.h"
#include "sched/learn.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "core/frame_info.h"
#include "platform/stats.h"
#include "platform/thread.h"

#include "copystack/abi.h"
#include "copystack/copystack.h"

#include <atomic>
#include <cstddef>
#include <mutex>
#include <cstdlib>
#include <new>
#include <sched.h>
#include <time.h>

extern "C" {
__thread copystack_rt::Thread __copystack_thread
    __attribute__((tls_model("initial-exec")));
}

namespace copystack_rt {

namespace {

std::atomic<uint64_t> g_next_id{1};
std::atomic<uint64_t> g_task_bytes{0};

// Task structures come from slabs (no allocator header per task) and are
// recycled through a per-thread cache in front of a global free list: a
// million short tasks are not a million malloc/free pairs, and the thread
// that spawns and the one that finishes rarely meet on a lock.
constexpr int kSlab = 64;
constexpr int kCache = 64;
// Quiet: creating and ending unrelated tasks takes them
// (platform/sanitizers.h).
san::QuietMutex g_free_lock;
Task *g_free_tasks;

struct TaskCache {
  Task *items[kCache];
  int n = 0;
  ~TaskCache() { // a thread ends: its cache goes back
    std::lock_guard<san::QuietMutex> g(g_free_lock);
    while (n)
      push_global(items[--n]);
  }
  static void push_global(Task *t) {
    t->next = g_free_tasks;
    g_free_tasks = t;
  }
};

// Every slab, for for_each_task: a chunked list that only grows, read
// without a lock (a reader sees a prefix of it).
constexpr int kSlabsPerChunk = 1024;
struct SlabChunk {
  Task *slabs[kSlabsPerChunk];
  std::atomic<int> n{0};
  std::atomic<SlabChunk *> next{nullptr};
};
SlabChunk g_first_chunk;
SlabChunk *g_last_chunk = &g_first_chunk; // under g_slab_lock
san::QuietMutex g_slab_lock;

void register_slab(Task *slab) {
  std::lock_guard<san::QuietMutex> g(g_slab_lock);
  SlabChunk *c = g_last_chunk;
  int n = c->n.load(std::memory_order_relaxed);
  if (n == kSlabsPerChunk) {
    auto *fresh = new SlabChunk;
    c->next.store(fresh, std::memory_order_release);
    g_last_chunk = c = fresh;
    n = 0;
  }
  c->slabs[n] = slab;
  c->n.store(n + 1, std::memory_order_release);
}

// A recycled structure, as a freshly constructed one but for its state
// (a collector may be looking at it: the state stays an atomic throughout).
Task *reset(Task *t) {
  CS_CHECK(t->state.load() == kFree, "a recycled task structure is free");
  t->sp = t->result = 0;
  t->done = 0;
  t->site = 0;
  t->copies = 0;
  t->stack = Stack{};
  t->id = 0;
  t->scrub_low = 0;
  t->pins = PinState{};
  t->next = nullptr;
  t->runner = nullptr;
  t->select = nullptr;
  t->wait = Waiter{};
  t->spawn_pc = 0;
  t->wait_since.store(0, std::memory_order_relaxed);
  t->wait_reason.store(kWaitNone, std::memory_order_relaxed);
  t->compacted = 0;
  t->parked_seen.store(0, std::memory_order_relaxed);
  return t;
}

Task *new_task_struct() {
  TaskCache &c = thread_block<TaskCache>(kSlotTaskCache);
  if (c.n == 0) {
    std::lock_guard<san::QuietMutex> g(g_free_lock);
    while (c.n < kCache / 2 && g_free_tasks) {
      c.items[c.n++] = g_free_tasks;
      g_free_tasks = g_free_tasks->next;
    }
  }
  if (c.n == 0) {
    auto *slab = static_cast<Task *>(
        aligned_alloc(alignof(Task), sizeof(Task) * kSlab));
    if (!slab)
      fatal("out of memory for task structures");
    for (int i = 0; i < kSlab; ++i)
      new (&slab[i]) Task; // state kFree until a task is built there
    register_slab(slab);
    g_task_bytes += sizeof(Task) * kSlab;
    for (int i = 0; i < kSlab - 1; ++i)
      c.items[c.n++] = &slab[i];
    return reset(&slab[kSlab - 1]);
  }
  return reset(c.items[--c.n]);
}

void free_task_struct(Task *t) {
  TaskCache &c = thread_block<TaskCache>(kSlotTaskCache);
  if (c.n == kCache) {
    std::lock_guard<san::QuietMutex> g(g_free_lock);
    while (c.n > kCache / 2)
      TaskCache::push_global(c.items[--c.n]);
  }
  c.items[c.n++] = t;
}

} // namespace

// What a debugger reads to find every task without the runtime's debug
// information (tools/gdb/copystack_gdb.py: "copystack tasks"): where the
// slab list starts and where the fields it shows live. Must match that
// script; bump version when a field moves or changes meaning.
struct DebugInfo {
  uint32_t version, task_size, slab_tasks, chunk_slabs;
  const SlabChunk *first_chunk;
  uint32_t chunk_n, chunk_next;
  uint32_t task_state, task_id, task_sp, task_stack_lo, task_stack_hi,
      task_copies, task_runner, task_wait_queued, task_wait_obj, task_select;
  uint32_t thread_task; // in __copystack_thread
  uint32_t task_compacted;
};

extern "C" __attribute__((used, visibility("default")))
const DebugInfo __copystack_debug_info = {
    2,
    sizeof(Task),
    kSlab,
    kSlabsPerChunk,
    &g_first_chunk,
    offsetof(SlabChunk, n),
    offsetof(SlabChunk, next),
    offsetof(Task, state),
    offsetof(Task, id),
    offsetof(Task, sp),
    offsetof(Task, stack) + offsetof(Stack, lo),
    offsetof(Task, stack) + offsetof(Stack, hi),
    offsetof(Task, copies),
    offsetof(Task, runner),
    offsetof(Task, wait) + offsetof(Waiter, queued),
    offsetof(Task, wait) + offsetof(Waiter, obj),
    offsetof(Task, select),
    offsetof(Thread, task),
    offsetof(Task, compacted),
};

namespace {

Task *init_task(Task *t, uintptr_t entry, uintptr_t a0, uintptr_t a1,
                uintptr_t a2, size_t start_size) {
  t->id = g_next_id.fetch_add(1);
  t->stack = allocate_stack(round_stack_size(start_size));
  // The first switch into the task pops a switch frame whose return address
  // is __copystack_task_start (frames.h, first_switch_frame).
  SwitchFrame *frame = first_switch_frame(
      t->stack.hi, reinterpret_cast<uintptr_t>(&__copystack_task_start),
      reinterpret_cast<uintptr_t>(t), entry, a0, a1, a2);
  t->eh_caught = nullptr; // no exception caught or in flight, as a thread
  t->eh_uncaught = 0;
  t->sp = reinterpret_cast<uintptr_t>(frame);
  // Nothing below the first frame was written: in verify mode a stack is
  // fresh zero pages (copy.cc move_frames).
  t->scrub_low = t->sp;
  t->wait.task = t;
  t->state.store(kSuspended, std::memory_order_release);
  counter_add(Counter::kTasksCreated, 1);
  return t;
}

// hint: a start size asked for at the spawn (0: none). Otherwise the
// spawn site's learned size, or the default (adaptive) one.
Task *init_task_for(Task *t, void (*fn)(void *), void *arg, size_t hint) {
  auto entry = reinterpret_cast<uintptr_t>(fn);
  uintptr_t a0 = reinterpret_cast<uintptr_t>(arg), a1 = 0;
  size_t start = 0;
  if (!is_instrumented(reinterpret_cast<void *>(fn))) {
    // Foreign code never runs on a copyable stack: the task's first frame
    // hands it to the thread's own stack.
    a1 = a0;
    a0 = entry;
    entry = reinterpret_cast<uintptr_t>(&__copystack_foreign_entry);
    start = COPYSTACK_MIN_STACK;
  } else {
    t->site = spawn_site(reinterpret_cast<uintptr_t>(fn));
    start = start_size_for(t->site);
    if (hint > start)
      start = hint < config().max_stack.load() ? hint
                                                : config().max_stack.load();
  }
  return init_task(t, entry, a0, a1, 0, start);
}

} // namespace

Task *create_task(uintptr_t entry, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                  size_t start_size) {
  return init_task(new_task_struct(), entry, a0, a1, a2, start_size);
}

Task *create_task_for(void (*fn)(void *), void *arg, size_t hint) {
  return init_task_for(new_task_struct(), fn, arg, hint);
}

Task *create_closure_task(void (*fn)(void *), size_t hint) {
  Task *t = new_task_struct();
  return init_task_for(t, fn, closure_of(t), hint);
}

void *closure_of(Task *t) {
  void *own = san::task_closure(t);
  return own ? own : t->closure;
}

void destroy_task(Task *t) {
  // A finished task is left in kRunning by the thread that ran it: no
  // collector touches it, and it is kFree before its stack goes.
  CS_CHECK(!t->compacted, "a task that ends ran on its stack");
  t->state.store(kFree, std::memory_order_release);
  learn_exit(t);
  release_stack(t->stack);
  t->stack = Stack{};
  free_pins(t->pins);
  free_task_struct(t);
}

void for_each_task(void (*fn)(Task *, void *), void *arg) {
  for (SlabChunk *c = &g_first_chunk; c;
       c = c->next.load(std::memory_order_acquire)) {
    int n = c->n.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < kSlab; ++k)
        fn(&c->slabs[i][k], arg);
  }
}

void begin_running(Task *t) {
  for (;;) {
    uint8_t expected = kSuspended;
    if (t->state.compare_exchange_weak(expected, kRunning,
                                       std::memory_order_acquire))
      return;
    CS_CHECK(expected == kShrinking || expected == kSuspended,
             "a task to run is suspended");
    cpu_relax(); // the collector is moving its stack
  }
}

void end_running(Task *t) {
  t->state.store(kSuspended, std::memory_order_release);
}

bool hold_task(Task *t) {
  uint8_t expected = kSuspended;
  return t->state.compare_exchange_strong(expected, kShrinking,
                                          std::memory_order_acquire);
}

bool hold_task_until(Task *t, uint32_t deadline_ms) {
  while (!hold_task(t)) {
    uint8_t s = t->state.load(std::memory_order_relaxed);
    // Released between the attempt and this look: try again. (Taking
    // that for "not held by a collector" lost the race: the dump printed
    // a parked task as "being moved", seen in CI with collections every
    // millisecond.)
    if (s == kSuspended)
      continue;
    // Past the deadline (coarse_ms wraps: compared as a difference).
    if (s != kShrinking || static_cast<int32_t>(coarse_ms() - deadline_ms) >= 0)
      return false;
    sched_yield();
  }
  return true;
}

void release_task(Task *t) {
  t->state.store(kSuspended, std::memory_order_release);
}

uint32_t coarse_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<uint32_t>(static_cast<uint64_t>(ts.tv_sec) * 1000 +
                               static_cast<uint64_t>(ts.tv_nsec) / 1000000);
}

void outside_task(const char *call) {
  fatal("%s was called on a thread that is not running a task: only a task "
        "can block (wait, sleep or yield). Run the code as a task: "
        "copystack_go, copystack_run, or main built with the copystack "
        "drivers",
        call);
}

void set_waiting(Task *t, uint8_t r) {
  t->wait_since.store(coarse_ms(), std::memory_order_relaxed);
  t->parked_seen.store(0, std::memory_order_relaxed);
  t->wait_reason.store(r, std::memory_order_release);
  note_parked();
}

uint64_t task_bytes_sys() { return g_task_bytes.load(); }

void task_fork_lock() {
  g_free_lock.lock();
  g_slab_lock.lock();
}

void task_fork_unlock() {
  g_slab_lock.unlock();
  g_free_lock.unlock();
}

} // namespace copystack_rt
