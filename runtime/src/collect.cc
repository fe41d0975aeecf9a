// collect.cc: the stack lifecycle beyond growth (collect.h).
#include "split_stack_notes.h"
#include "collect.h"
#include "config.h"
#include "fatal.h"
#include "frame_info.h"
#include "relocate.h"
#include "stack_alloc.h"
#include "stats.h"
#include "task.h"

#include "copystack/abi.h"
#include "copystack/copystack.h"

#include <atomic>
#include <cstring>
#include <mutex>

namespace copystack_rt {

namespace {

// A stack is halved when its frames, the guard and this much more fit in
// the half (and it uses under a quarter, Go's rule): a task that resumes
// has room for a call or two before it must grow again.
constexpr size_t kShrinkSlack = 256;
// Verify mode's poison (growth.cc).
constexpr int kPoison = 0xdb;

bool started(const Task *t) {
  auto *frame = reinterpret_cast<const uintptr_t *>(t->sp);
  return frame[SWITCH_RET / 8] !=
         reinterpret_cast<uintptr_t>(&__copystack_task_start);
}

// ---- learned start sizes, per spawn site --------------------------------------

// Open addressing on the entry function; slot 0 means "no site".
constexpr int kSites = 4096;
constexpr size_t kMaxLearned = size_t(1) << 20;
constexpr uint32_t kShrinkAfter = 8; // exits below half before halving
struct Site {
  std::atomic<uintptr_t> fn{0};
  std::atomic<size_t> size{0};
  std::atomic<uint32_t> small_exits{0};
};
Site g_sites[kSites];

uint16_t site_of(uintptr_t fn) {
  uint32_t h = static_cast<uint32_t>((fn >> 4) * 0x9e3779b1u);
  for (int probe = 0; probe < 16; ++probe) {
    uint32_t i = 1 + (h + probe) % (kSites - 1);
    uintptr_t cur = g_sites[i].fn.load(std::memory_order_acquire);
    if (cur == fn)
      return static_cast<uint16_t>(i);
    if (cur == 0) {
      uintptr_t expected = 0;
      if (g_sites[i].fn.compare_exchange_strong(expected, fn) ||
          expected == fn)
        return static_cast<uint16_t>(i);
    }
  }
  return 0; // table crowded: this site does not learn
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

bool shrink_suspended(Task *t, bool always_move, bool to_pool) {
  const Stack old = t->stack;
  const size_t used = old.hi - t->sp;
  size_t size = old.size();
  if (size > COPYSTACK_MIN_STACK && used * 4 < size &&
      used + COPYSTACK_GUARD + kShrinkSlack <= size / 2)
    size /= 2;
  else if (!always_move)
    return false;

  const uint64_t t0 = now_ns();
  const Stack fresh = allocate_stack(size);
  const uintptr_t nb = fresh.hi - used;
  memcpy(reinterpret_cast<void *>(nb), reinterpret_cast<void *>(t->sp), used);
  Config &cfg = config();
  if (cfg.verify)
    memset(reinterpret_cast<void *>(fresh.lo), kPoison, nb - fresh.lo);

  // The switch frame holds the registers of the function that parked (or
  // yielded): its callee-saved registers and %rbp, and its return address.
  Relocator rel(old, fresh, process_frames(),
                reinterpret_cast<uintptr_t>(__copystack_task_return));
  if (cfg.verify_scan)
    rel.enable_verify(nb);
  auto *frame = reinterpret_cast<uintptr_t *>(nb);
  WalkStart ws;
  ws.regs.csr[kRbx] = &frame[SWITCH_RBX / 8];
  ws.regs.csr[kR12] = &frame[SWITCH_R12 / 8];
  ws.regs.csr[kR13] = &frame[SWITCH_R13 / 8];
  ws.regs.csr[kR14] = &frame[SWITCH_R14 / 8];
  ws.regs.csr[kR15] = &frame[SWITCH_R15 / 8];
  ws.regs.rbp = &frame[SWITCH_RBP / 8];
  ws.ra_slot = &frame[SWITCH_RET / 8];
  ws.known_lo = nb;
  ws.known_hi = nb + SWITCH_FRAME_BYTES;
  rel.run(ws);
  if (cfg.verify_scan)
    if (unsigned n = rel.report_unrelocated())
      report("verify: %u suspicious word(s) after moving the stack of "
             "suspended task %lu",
             n, (unsigned long)t->id);

  const bool shrunk = size < old.size();
  t->sp = nb;
  t->stack = fresh;
  t->copies++;
  t->scrub_low = fresh.lo;
  release_stack(old, to_pool);

  const uint64_t ns = now_ns() - t0;
  Stats &st = stats();
  (shrunk ? st.shrinks : st.moves)++;
  st.bytes_copied += used;
  st.copy_ns += ns;
  st.pointers_adjusted += rel.adjusted();
  if (cfg.trace)
    report("task %lu %s: %zu -> %zu bytes, %zu live, %lu ns",
           (unsigned long)t->id, shrunk ? "shrink" : "move (suspended)",
           old.size(), size, used, (unsigned long)ns);
  return shrunk;
}

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
    if (start > kMaxLearned)
      start = kMaxLearned;
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

uint16_t spawn_site(uintptr_t fn) {
  return config().learn.load(std::memory_order_relaxed) ? site_of(fn) : 0;
}

size_t start_size_for(uint16_t site) {
  size_t s = default_start_stack();
  if (site) {
    size_t learned = g_sites[site].size.load(std::memory_order_relaxed);
    if (learned > s)
      s = learned;
  }
  return s;
}

void learn_exit(const Task *t) {
  if (!t->site)
    return;
  Site &s = g_sites[t->site];
  size_t size = t->stack.size();
  if (size > kMaxLearned)
    size = kMaxLearned;
  size_t learned = s.size.load(std::memory_order_relaxed);
  if (size > learned) {
    s.size.store(size, std::memory_order_relaxed);
    s.small_exits.store(0, std::memory_order_relaxed);
  } else if (size <= learned / 2) {
    // The site's tasks need less now: halve after a run of small exits.
    if (s.small_exits.fetch_add(1, std::memory_order_relaxed) + 1 >=
        kShrinkAfter) {
      s.size.store(learned / 2 < COPYSTACK_MIN_STACK ? 0 : learned / 2,
                   std::memory_order_relaxed);
      s.small_exits.store(0, std::memory_order_relaxed);
    }
  } else {
    s.small_exits.store(0, std::memory_order_relaxed);
  }
}

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" {

void copystack_collect(void) { collect(true); }

void copystack_get_policy(copystack_policy *out) {
  Config &c = config();
  out->shrink = c.shrink.load();
  out->adaptive_start = c.adaptive.load();
  out->learn_start = c.learn.load();
  out->release_memory = c.release.load();
  out->collect_interval_ms = c.collect_ms.load();
}

void copystack_set_policy(const copystack_policy *p) {
  Config &c = config();
  c.shrink.store(p->shrink != 0);
  c.adaptive.store(p->adaptive_start != 0);
  c.learn.store(p->learn_start != 0);
  c.release.store(p->release_memory != 0);
  c.collect_ms.store(p->collect_interval_ms);
}

size_t copystack_set_start_stack(size_t bytes) {
  if (bytes < COPYSTACK_MIN_STACK || bytes > kMaxLearned * 1024)
    fatal("copystack_set_start_stack(%zu): from %d bytes to 1 GiB", bytes,
          COPYSTACK_MIN_STACK);
  return config().start_stack.exchange(bytes);
}

size_t copystack_start_stack(void) { return default_start_stack(); }

} // extern "C"
