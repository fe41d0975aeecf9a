// stats.h: the runtime's counters (copystack_get_stats) and growth events
// (copystack_set_growth_hook, COPYSTACK_TRACE).
#ifndef COPYSTACK_STATS_H
#define COPYSTACK_STATS_H

#include "copystack/copystack.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// A counter that every thread updates often (a spawn, a stack's allocation
// and release, a task's end): each thread owns a slot of its own, adds to
// it with a plain load and store (no locked instruction, no cache line
// shared with another writer), and a read sums the slots. A shared atomic
// moved its cache line between the spawning thread and the worker that
// ends the task, on every task, and even sixteen shared shards cost a
// locked add each. A read is a sum of values each thread last wrote: exact
// once the writers' updates happen before it, otherwise any mix of recent
// values. The counters are the ones named below, so that a thread's slots
// for all of them share its cache lines.
enum class Counter : int {
  kTasksCreated,
  kStackInUse, // bytes of stacks handed out
  kLiveTasks,
  kCount
};

void counter_add(Counter c, int64_t n);

// The calling thread's execution-trace ring (sched/trace.h), kept in the
// same per-thread block as its counters.
std::atomic<void *> &thread_trace_ring();
int64_t counter_load(Counter c);

struct Stats {
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
  std::atomic<uint64_t> preemptions{0};
  std::atomic<uint64_t> preemptions_signal{0};
};

Stats &stats();

// The growth hook (copystack_set_growth_hook); returns the previous one.
copystack_growth_hook set_growth_hook(copystack_growth_hook hook, void *data);

// Reports one copy to the hook and the trace.
void publish_growth(const copystack_growth_event &ev);

uint64_t now_ns();

// "4 KiB", "2 MiB", "3000 bytes": sizes in messages.
const char *human_bytes(size_t bytes, char *buf, size_t len);

} // namespace copystack_rt

#endif
