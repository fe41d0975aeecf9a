// collect.cc: the stack lifecycle beyond growth (collect.h).
#include "platform/split_stack_notes.h"
#include "sched/collect.h"
#include "core/copy.h"
#include "core/shrink.h"
#include "sched/learn.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "core/frame_info.h"
#include "core/relocate.h"
#include "core/stack_alloc.h"
#include "platform/stats.h"
#include "sched/trace.h"
#include "sched/task.h"

#include "copystack/abi.h"
#include "copystack/copystack.h"

#include <atomic>
#include <cstring>
#include <mutex>

namespace copystack_rt {

namespace {

// ---- the collector -------------------------------------------------------------

std::mutex g_collect_lock;
std::atomic<uint64_t> g_inuse_after_last{0};
std::atomic<uint64_t> g_growths_at_last{0};
std::atomic<uint64_t> g_last_ns{0};
// Tasks the last collection left marked and could compact: the next
// periodic collection is due even if no stack changed meanwhile (an idle
// server's parked tasks are compacted without further activity). Tasks
// that parked since the last collection make it due too (collect.h,
// note_parked): else a collection that ran while they were busy would be
// the last one.
std::atomic<uint64_t> g_pending_compact{0};

// An automatic collection compacts only tasks parked at least this long: a
// burst of tasks that park for a moment (a spawn, a request) is not copied
// out and back. copystack_collect() compacts every task parked across the
// previous collection.
constexpr uint32_t kCompactAgeMs = 1000;

struct Pass {
  bool shrink, compact;
  bool asked;    // copystack_collect(), not the monitor
  uint32_t now_ms = 0;
  uint64_t used_sum = 0, measured = 0, shrunk = 0, compacted = 0;
  uint64_t pending = 0; // marked, compactable, not compacted yet
};

// A task blocked on something (not runnable, nor preempted).
bool waiting(const Task *t) {
  return t->wait_reason.load(std::memory_order_acquire) != kWaitNone;
}

// Stack memory in use: live stacks, and the frames of compacted tasks.
uint64_t footprint() { return stack_bytes_inuse() + compacted_bytes(); }

void visit(Task *t, void *arg) {
  if (t->state.load(std::memory_order_relaxed) != kSuspended ||
      !hold_task(t))
    return;
  auto *p = static_cast<Pass *>(arg);
  if (t->compacted) {
    p->used_sum += compacted_used(t);
    ++p->measured;
  } else if (task_started(t)) {
    p->used_sum += t->stack.hi - t->sp;
    ++p->measured;
    // Parked since the last collection: only its live bytes stay. Else
    // halved when it uses little, and marked if it waits.
    if (p->compact && t->parked_seen.load(std::memory_order_relaxed) &&
        waiting(t) &&
        (p->asked ||
         p->now_ms - t->wait_since.load(std::memory_order_relaxed) >=
             kCompactAgeMs) &&
        can_compact(t)) {
      compact_suspended(t, true);
      ++p->compacted;
    } else {
      if (p->shrink && shrink_suspended(t, false, true))
        ++p->shrunk;
      const bool seen = p->compact && waiting(t);
      t->parked_seen.store(seen, std::memory_order_relaxed);
      if (seen && can_compact(t))
        ++p->pending;
    }
  }
  release_task(t);
}

} // namespace

std::atomic<uint8_t> g_parked_since_collect{0};

uint64_t collect(bool shrink, bool asked) {
  std::lock_guard<std::mutex> g(g_collect_lock);
  const uint64_t traced = trace::on() ? trace::now() : 0;
  Config &cfg = config();
  // Before the scan: a task that parks during it makes the next one due.
  g_parked_since_collect.store(0, std::memory_order_relaxed);
  Pass p;
  p.asked = asked;
  p.now_ms = coarse_ms();
  p.shrink = shrink && cfg.shrink.load();
  p.compact = shrink && cfg.compact.load();
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
  g_inuse_after_last.store(footprint());
  g_growths_at_last.store(st.growths.load());
  g_last_ns.store(now_ns());
  g_pending_compact.store(p.pending);
  (void)released;
  if (traced)
    trace::slice(trace::kCollect, traced, p.shrunk,
                 static_cast<uint32_t>(p.compacted));
  return p.shrunk;
}

void maybe_collect() {
  Config &cfg = config();
  uint64_t inuse = footprint();
  uint64_t last = g_inuse_after_last.load();
  // Pressure: stack memory (compacted frames included) doubled since the
  // last collection, and is worth a look.
  bool pressure = inuse > (uint64_t(16) << 20) && inuse > 2 * last;
  uint64_t ms = cfg.collect_ms.load();
  bool due = ms && now_ns() - g_last_ns.load() >= ms * 1000000 &&
             (stats().growths.load() != g_growths_at_last.load() ||
              inuse != last || g_pending_compact.load() != 0 ||
              g_parked_since_collect.load(std::memory_order_relaxed));
  if (pressure || due)
    collect(true, false);
}

void collect_fork_lock() { g_collect_lock.lock(); }
void collect_fork_unlock() { g_collect_lock.unlock(); }

} // namespace copystack_rt
