// collect.cc: the stack lifecycle beyond growth (collect.h).
#include "platform/split_stack_notes.h"
#include "sched/collect.h"
#include "core/shrink.h"
#include "sched/learn.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "core/frame_info.h"
#include "core/relocate.h"
#include "core/stack_alloc.h"
#include "platform/stats.h"
#include "sched/task.h"

#include "copystack/abi.h"
#include "copystack/copystack.h"

#include <atomic>
#include <cstring>
#include <mutex>

namespace copystack_rt {

namespace {

bool started(const Task *t) {
  auto *frame = reinterpret_cast<const uintptr_t *>(t->sp);
  return frame[SWITCH_RET / 8] !=
         reinterpret_cast<uintptr_t>(&__copystack_task_start);
}

// ---- the collector -------------------------------------------------------------

std::mutex g_collect_lock;
std::atomic<uint64_t> g_inuse_after_last{0};
std::atomic<uint64_t> g_growths_at_last{0};
std::atomic<uint64_t> g_last_ns{0};

struct Pass {
  bool shrink;
  uint64_t used_sum = 0, measured = 0, shrunk = 0;
};

void visit(Task *t, void *arg) {
  if (t->state.load(std::memory_order_relaxed) != kSuspended)
    return;
  uint8_t expected = kSuspended;
  if (!t->state.compare_exchange_strong(expected, kShrinking,
                                        std::memory_order_acquire))
    return;
  auto *p = static_cast<Pass *>(arg);
  if (started(t)) {
    p->used_sum += t->stack.hi - t->sp;
    ++p->measured;
    if (p->shrink && shrink_suspended(t, false, true))
      ++p->shrunk;
  }
  t->state.store(kSuspended, std::memory_order_release);
}

} // namespace

uint64_t collect(bool shrink) {
  std::lock_guard<std::mutex> g(g_collect_lock);
  Config &cfg = config();
  Pass p;
  p.shrink = shrink && cfg.shrink.load();
  for_each_task(visit, &p);

  // Go 1.19's adaptive start: the average use of the stacks scanned,
  // plus the guard, rounded up to a power of two.
  if (cfg.adaptive.load() && p.measured) {
    size_t avg = p.used_sum / p.measured + COPYSTACK_GUARD + kShrinkSlack;
    size_t start = round_stack_size(avg);
    if (start > kMaxStartSize)
      start = kMaxStartSize;
    cfg.adaptive_start.store(start);
  }
  uint64_t released = cfg.release.load() ? scavenge_stacks() : 0;
  Stats &st = stats();
  st.collections++;
  g_inuse_after_last.store(stack_bytes_inuse());
  g_growths_at_last.store(st.growths.load());
  g_last_ns.store(now_ns());
  (void)released;
  return p.shrunk;
}

void maybe_collect() {
  Config &cfg = config();
  uint64_t inuse = stack_bytes_inuse();
  uint64_t last = g_inuse_after_last.load();
  // Pressure: stack memory doubled since the last collection (and is worth
  // a look).
  bool pressure = inuse > (uint64_t(16) << 20) && inuse > 2 * last;
  uint64_t ms = cfg.collect_ms.load();
  bool due = ms && now_ns() - g_last_ns.load() >= ms * 1000000 &&
             (stats().growths.load() != g_growths_at_last.load() ||
              inuse != last);
  if (pressure || due)
    collect(true);
}

void collect_fork_lock() { g_collect_lock.lock(); }
void collect_fork_unlock() { g_collect_lock.unlock(); }

} // namespace copystack_rt
