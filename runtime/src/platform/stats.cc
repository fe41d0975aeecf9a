// stats.cc: counters and growth events (stats.h).
#include "platform/split_stack_notes.h"
#include "platform/demangle.h"
#include "platform/stats.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/thread_heap.h"
#include "sched/trace.h"

#include <cstdio>
#include <time.h>

namespace copystack_rt {

namespace {
std::atomic<copystack_growth_hook> g_hook{nullptr};
std::atomic<void *> g_hook_data{nullptr};
} // namespace

namespace {
// One thread's slots (its thread_heap.h block: no static TLS). A block is
// owned by one thread at a time; when the thread ends, its block is
// released with its values in it (they are part of the sums) and the next
// new thread takes it over. Blocks are never freed: readers walk the list
// without a lock.
struct alignas(64) CounterBlock {
  std::atomic<int64_t> v[static_cast<int>(Counter::kCount)];
  std::atomic<bool> owned;
  // The thread's execution-trace ring (sched/trace.h), or null: a thread
  // that takes a released block takes its ring on.
  std::atomic<void *> trace_ring;
  CounterBlock *next;
};

std::atomic<CounterBlock *> g_blocks{nullptr};

// A thread's first count: a released block (its values carried on), or a
// new one pushed onto the list.
void *take_block() {
  CounterBlock *b = g_blocks.load(std::memory_order_acquire);
  for (; b; b = b->next) {
    bool free = false;
    if (!b->owned.load(std::memory_order_relaxed) &&
        b->owned.compare_exchange_strong(free, true,
                                         std::memory_order_acquire))
      return b;
  }
  b = new CounterBlock();
  for (auto &v : b->v)
    v.store(0, std::memory_order_relaxed);
  b->owned.store(true, std::memory_order_relaxed);
  b->trace_ring.store(nullptr, std::memory_order_relaxed);
  b->next = g_blocks.load(std::memory_order_relaxed);
  while (!g_blocks.compare_exchange_weak(b->next, b,
                                         std::memory_order_release,
                                         std::memory_order_relaxed)) {
  }
  return b;
}

// The thread ends (a thread that never does, the main thread at exit,
// keeps its block: nothing is lost either way).
void release_block(void *p) {
  auto *b = static_cast<CounterBlock *>(p);
  if (void *ring = b->trace_ring.load(std::memory_order_relaxed))
    trace::thread_left(ring); // the next thread here takes it on
  b->owned.store(false, std::memory_order_release);
}

const SlotKind kCounterSlot{take_block, release_block};
} // namespace

void counter_add(Counter c, int64_t n) {
  auto *b = static_cast<CounterBlock *>(thread_slot(kSlotCounters,
                                                    kCounterSlot));
  std::atomic<int64_t> &v = b->v[static_cast<int>(c)];
  v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

std::atomic<void *> &thread_trace_ring() {
  return static_cast<CounterBlock *>(thread_slot(kSlotCounters, kCounterSlot))
      ->trace_ring;
}

int64_t counter_load(Counter c) {
  int64_t sum = 0;
  for (CounterBlock *b = g_blocks.load(std::memory_order_acquire); b;
       b = b->next)
    sum += b->v[static_cast<int>(c)].load(std::memory_order_relaxed);
  return sum;
}

Stats &stats() {
  static Stats s;
  return s;
}

const char *human_bytes(size_t bytes, char *buf, size_t len) {
  if (bytes >= (1u << 30) && bytes % (1u << 30) == 0)
    snprintf(buf, len, "%zu GiB", bytes >> 30);
  else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    snprintf(buf, len, "%zu MiB", bytes >> 20);
  else if (bytes >= (1u << 10) && bytes % (1u << 10) == 0)
    snprintf(buf, len, "%zu KiB", bytes >> 10);
  else
    snprintf(buf, len, "%zu bytes", bytes);
  return buf;
}

uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

copystack_growth_hook set_growth_hook(copystack_growth_hook hook,
                                      void *data) {
  g_hook_data.store(data);
  return g_hook.exchange(hook);
}

void publish_growth(const copystack_growth_event &ev) {
  if (config().trace)
    report("task %lu copy %lu: %zu -> %zu bytes, %zu live, %zu headroom, "
           "frame %zu for %s, %lu ns%s",
           (unsigned long)ev.task_id, (unsigned long)ev.copy_number,
           ev.old_size, ev.new_size, ev.used, ev.headroom, ev.frame,
           Demangled(ev.function).str(), (unsigned long)ev.ns, ev.forced ? " (stress)" : "");
  if (copystack_growth_hook h = g_hook.load())
    h(&ev, g_hook_data.load());
}

} // namespace copystack_rt
