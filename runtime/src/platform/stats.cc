// stats.cc: counters and growth events (stats.h).
#include "platform/split_stack_notes.h"
#include "platform/demangle.h"
#include "platform/stats.h"
#include "platform/config.h"
#include "platform/fatal.h"

#include <time.h>

namespace copystack_rt {

namespace {
std::atomic<copystack_growth_hook> g_hook{nullptr};
std::atomic<void *> g_hook_data{nullptr};
} // namespace

namespace {
std::atomic<unsigned> g_next_shard{0};
thread_local int t_shard = -1;
} // namespace

void ShardedCounter::add(int64_t n) {
  if (t_shard < 0)
    t_shard = static_cast<int>(g_next_shard.fetch_add(1) % kShards);
  shards_[t_shard].v.fetch_add(n, std::memory_order_relaxed);
}

int64_t ShardedCounter::load() const {
  int64_t sum = 0;
  for (const Shard &s : shards_)
    sum += s.v.load(std::memory_order_relaxed);
  return sum;
}

Stats &stats() {
  static Stats s;
  return s;
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
