// stats.h: the runtime's counters (copystack_get_stats) and growth events
// (copystack_set_growth_hook, COPYSTACK_TRACE).
#ifndef COPYSTACK_STATS_H
#define COPYSTACK_STATS_H

#include "copystack/copystack.h"

#include <atomic>
#include <cstdint>

namespace copystack_rt {

// A counter that every thread updates often (a spawn, a stack's allocation
// and release): one cache line per shard, a thread adds to its own, a read
// sums them. A single atomic moved its cache line between the spawning
// thread and the worker that ends the task, on every task.
class ShardedCounter {
public:
  void add(int64_t n);
  int64_t load() const;

private:
  static constexpr int kShards = 16;
  struct alignas(64) Shard {
    std::atomic<int64_t> v{0};
  };
  Shard shards_[kShards];
};

struct Stats {
  ShardedCounter tasks_created;
  std::atomic<uint64_t> growths{0};
  std::atomic<uint64_t> moves{0};
  std::atomic<uint64_t> bytes_copied{0};
  std::atomic<uint64_t> copy_ns{0};
  std::atomic<uint64_t> pointers_adjusted{0};
  std::atomic<uint64_t> shrinks{0};
  std::atomic<uint64_t> collections{0};
  std::atomic<uint64_t> compactions{0};
  std::atomic<uint64_t> expansions{0};
  std::atomic<uint64_t> expand_ns{0};
};

Stats &stats();

// The growth hook (copystack_set_growth_hook); returns the previous one.
copystack_growth_hook set_growth_hook(copystack_growth_hook hook, void *data);

// Reports one copy to the hook and the trace.
void publish_growth(const copystack_growth_event &ev);

uint64_t now_ns();

} // namespace copystack_rt

#endif
