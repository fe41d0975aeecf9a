// learn.cc: start sizes learned per spawn site (learn.h).
#include "platform/split_stack_notes.h"
#include "sched/learn.h"
#include "platform/config.h"

#include "copystack/abi.h"

#include <atomic>

namespace copystack_rt {

namespace {

// Open addressing on the entry function; slot 0 means "no site".
constexpr int kSites = 4096;
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

} // namespace

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
  if (size > kMaxStartSize)
    size = kMaxStartSize;
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
  } else if (s.small_exits.load(std::memory_order_relaxed) != 0) {
    // (Only when it changes: every task of a site exits here, on every
    // worker, and a store per exit moved the line between their caches.)
    s.small_exits.store(0, std::memory_order_relaxed);
  }
}

} // namespace copystack_rt
