// stack_alloc.cc: power-of-two stacks from the OS (stack_alloc.h).
#include "platform/split_stack_notes.h"
#include "platform/thread_heap.h"
#include "core/stack_alloc.h"
#include "platform/config.h"
#include "platform/constants.h"
#include "platform/fatal.h"
#include "platform/once.h"
#include "platform/sanitizers.h"

#include "copystack/abi.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <algorithm>
#include <map>
#include <vector>
#include <sys/mman.h>
#include <unistd.h>

namespace copystack_rt {

namespace {


// Stacks up to this size are carved from shared mappings; larger ones get
// their own mapping.
constexpr size_t kMaxPooled = 64 * 1024;
// Released large stacks are kept for reuse, up to this many bytes in all:
// a fresh mapping costs a page fault per 4 KiB touched, which is most of
// what a growth to 1 MiB costs. Beyond the cap they go back to the OS.
constexpr size_t kLargeCacheBytes = size_t(64) << 20;
constexpr int kLargeClasses = 40;
// Each refill of a small size class maps this much (or one stack if larger).
constexpr size_t kChunk = 256 * 1024;
// Verify mode takes stacks from one reservation of this much address space
// and never reuses an address: a released stack stays mapped inaccessible
// for the life of the process, so any later use of a pointer into it
// faults. An inaccessible reservation costs no memory; stress mode, which
// copies the whole stack at every call, goes through a few GiB a second.
// The verify arena: 1 TiB of address space, or COPYSTACK_VERIFY_ARENA_GIB
// (tests use a small one to exercise its wrap-around).
size_t g_verify_arena = size_t(1) << 40;
// Released stacks remembered by address, for naming them in fault reports.
constexpr size_t kRecent = 4096;

constexpr int kClasses = 6; // 2K 4K 8K 16K 32K 64K

std::atomic<uint64_t> g_inuse{0};
std::atomic<uint64_t> g_sys{0};

// A free stack's free-list link lives in its top bytes, which the next task
// writes first anyway: a link at the bottom kept one more page resident per
// pooled stack (a parked task's frames touch only its top page).
struct FreeStack {
  FreeStack *next;
  size_t size; // of a large stack in the cache
};
FreeStack *link_of(uintptr_t lo, size_t size) {
  return reinterpret_cast<FreeStack *>(lo + size - sizeof(FreeStack));
}
uintptr_t lo_of(const FreeStack *f, size_t size) {
  return reinterpret_cast<uintptr_t>(f) + sizeof(FreeStack) - size;
}

std::mutex g_lock;
FreeStack *g_free[kClasses];

// Per-thread caches of small stacks in front of g_free (Go keeps one per
// P): a task's stack usually goes back on the thread that finishes it and
// comes out on the thread that spawns the next.
constexpr int kThreadCache = 32;
// Per class, a thread keeps at most this many bytes of free stacks (and at
// least two stacks): 32 stacks of 2 KiB, two of 64 KiB.
constexpr size_t kThreadCacheBytes = 64 * 1024;
int cache_cap(int c) {
  size_t size = size_t(COPYSTACK_MIN_STACK) << c;
  size_t n = kThreadCacheBytes / size;
  return n < 2 ? 2 : n > kThreadCache ? kThreadCache : static_cast<int>(n);
}
struct StackCache {
  FreeStack *items[kClasses][kThreadCache];
  int n[kClasses] = {};
  ~StackCache() {
    std::lock_guard<std::mutex> g(g_lock);
    for (int c = 0; c < kClasses; ++c)
      while (n[c]) {
        FreeStack *f = items[c][--n[c]];
        f->next = g_free[c];
        g_free[c] = f;
      }
  }
};
FreeStack *g_large[kLargeClasses];
size_t g_large_bytes;
// Free stacks whose memory went back to the OS (scavenge()): their
// addresses, out of band, since their contents are gone. Reused before
// new chunks are mapped; under g_lock.
// (Never destroyed: exit() runs static destructors while workers may still
// be releasing stacks. So for the verify arena below.)
std::vector<uintptr_t> *released_lists() {
  static auto *v = new std::vector<uintptr_t>[kClasses];
  return v;
}
std::atomic<uint64_t> g_released_total{0};

Once g_arena_once;
uintptr_t g_arena_lo, g_arena_hi;

// One half of the verify arena, handed out in address order so that a
// stale pointer finds its old stack fenced. When the bump pointer reaches
// the end it wraps around to the lowest addresses and goes on past the
// stacks still live there: a long stress run (a copy per call, millions of
// copies of a grown stack) reuses addresses only after half a terabyte of
// fresh ones, so a missed pointer still faults unless it stays unused that
// long.
struct ArenaHalf {
  uintptr_t lo = 0, hi = 0, next = 0;
  uint64_t wraps = 0;
  std::map<uintptr_t, uintptr_t> live; // lo -> end (page-rounded), by address
  // Quiet: unrelated tasks' stacks come and go under it
  // (platform/sanitizers.h).
  san::QuietMutex lock;

  // [base - below, base + bytes) free, base returned; below: a guard page.
  uintptr_t take(size_t bytes, size_t below) {
    std::lock_guard<san::QuietMutex> g(lock);
    size_t need = below + bytes;
    uintptr_t at = next;
    bool wrapped = false;
    for (;;) {
      if (at + need > hi) {
        if (wrapped)
          fatal("verify mode has no room left for a %zu-byte stack in its "
                "%zu GiB of address space: live stacks fill it",
                bytes, (hi - lo) >> 30);
        wrapped = true;
        ++wraps;
        at = lo;
      }
      // The first live stack ending above at: does it overlap?
      auto it = live.upper_bound(at);
      if (it != live.begin()) {
        auto prev = std::prev(it);
        if (prev->second > at) {
          at = prev->second;
          continue;
        }
      }
      if (it != live.end() && it->first - (below ? kPage : 0) < at + need) {
        at = it->second;
        continue;
      }
      break;
    }
    next = at + need;
    live.emplace(at + below, at + need);
    return at + below;
  }

  void give_back(uintptr_t base) {
    std::lock_guard<san::QuietMutex> g(lock);
    live.erase(base);
  }
};
ArenaHalf &guarded_half() {
  static auto *h = new ArenaHalf;
  return *h;
}
ArenaHalf &dense_half() {
  static auto *h = new ArenaHalf;
  return *h;
}

struct Released {
  uintptr_t lo, hi;
};
Released g_recent[kRecent];
std::atomic<size_t> g_recent_next;

int class_of(size_t size) {
  int c = 0;
  for (size_t s = COPYSTACK_MIN_STACK; s < size; s <<= 1)
    ++c;
  return c;
}

void *map_or_die(size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    fatal("cannot map %zu bytes for a stack: %s", bytes, strerror(errno));
  g_sys += bytes;
  return p;
}

size_t page_round(size_t n) { return (n + kPage - 1) & ~(kPage - 1); }

// Every guarded stack is a mapping of its own with an inaccessible page
// below it, and the kernel allows a process vm.max_map_count mappings
// (65530 by default). Up to kGuardedLive live stacks get a guard page;
// beyond that (a test with 100,000 parked tasks), stacks are packed side by
// side in the upper half of the arena, where neighbours merge into one
// mapping. A released packed stack is fenced while the fences made so far
// stay within a share of vm.max_map_count, and after that only returned to
// the OS (it then reads as zeros instead of faulting).
constexpr uint64_t kGuardedLive = 16384;
std::atomic<uint64_t> g_guarded_live{0};
std::atomic<uint64_t> g_fences{0};
uint64_t g_fence_budget;

uint64_t read_max_map_count() {
  uint64_t n = 65530;
  if (FILE *f = fopen("/proc/sys/vm/max_map_count", "r")) {
    unsigned long v;
    if (fscanf(f, "%lu", &v) == 1)
      n = v;
    fclose(f);
  }
  return n;
}

void init_arena() {
  g_verify_arena = size_t(config().verify_arena_gib) << 30;
  void *p = mmap(nullptr, g_verify_arena, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    fatal("verify mode cannot reserve %zu GiB of address space for stacks: "
          "%s", g_verify_arena >> 30, strerror(errno));
  g_arena_lo = reinterpret_cast<uintptr_t>(p);
  g_arena_hi = g_arena_lo + g_verify_arena;
  ArenaHalf &g = guarded_half(), &d = dense_half();
  g.lo = g.next = g_arena_lo;
  g.hi = d.lo = d.next = g_arena_lo + g_verify_arena / 2;
  d.hi = g_arena_hi;
  uint64_t max = read_max_map_count();
  uint64_t reserved = 2 * kGuardedLive + 4096; // guarded stacks, the rest
  g_fence_budget = max > reserved ? (max - reserved) / 2 : 0;
}

bool is_dense(uintptr_t lo) { return lo >= g_arena_lo + g_verify_arena / 2; }

Stack allocate_verify(size_t size) {
  g_arena_once.call(init_arena);
  size_t pages = page_round(size);
  bool guarded = g_guarded_live.fetch_add(1) < kGuardedLive;
  uintptr_t base;
  if (guarded) {
    // An inaccessible page below lo catches code that runs past the guard.
    base = guarded_half().take(pages, kPage);
  } else {
    g_guarded_live.fetch_sub(1);
    base = dense_half().take(pages, 0);
  }
  Stack s;
  s.lo = base;
  s.hi = s.lo + size;
  if (mprotect(reinterpret_cast<void *>(s.lo), pages,
               PROT_READ | PROT_WRITE) != 0)
    fatal("mprotect of a verify-mode stack failed: %s (vm.max_map_count is "
          "%lu)", strerror(errno), (unsigned long)read_max_map_count());
  g_sys += size;
  return s;
}

void release_verify(Stack s) {
  void *lo = reinterpret_cast<void *>(s.lo);
  size_t pages = page_round(s.size());
  if (!is_dense(s.lo) || g_fences.fetch_add(1) < g_fence_budget) {
    // A fresh inaccessible mapping in place, rather than mprotect: it frees
    // the memory, and the kernel can merge it with the untouched mappings
    // around it (a written one cannot), so that stress mode's copy per
    // call does not run out of vm.max_map_count.
    void *p = mmap(lo, pages, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
      fatal("fencing a released stack failed: %s", strerror(errno));
  } else {
    madvise(lo, pages, MADV_DONTNEED);
  }
  if (!is_dense(s.lo)) {
    g_guarded_live.fetch_sub(1);
    guarded_half().give_back(s.lo);
  } else {
    dense_half().give_back(s.lo);
  }
  g_sys -= s.size();
  g_released_total += s.size(); // fenced: its memory is the OS's again
  g_recent[g_recent_next.fetch_add(1) % kRecent] = Released{s.lo, s.hi};
}

// Under ASan or TSan, whose checks run in place on task stacks
// (platform/sanitizers.h), every stack has the sanitizers' headroom below
// it: lo - below is the lowest byte of its memory, and below that an
// inaccessible page (verify mode's arena has its own). Under LeakSanitizer
// alone there is no headroom (below is 0), but stacks are mapped one by one
// too, so that each is a root region while it is in use. Each stack is a
// mapping of its own, handed back to the OS when released, so that the
// sanitizers see its memory come and go (TSan forgets what other tasks did
// there); LeakSanitizer scans it for pointers while it is in use.
Stack allocate_with_headroom(size_t size, size_t below) {
  // The runtime's own bookkeeping (verify mode's arena: a std::map under a
  // quiet lock), which TSan must not take for the task's accesses.
  san::UnseenScope unseen;
  Stack raw;
  if (config().verify) {
    raw = allocate_verify(size + below);
  } else {
    auto *p = static_cast<char *>(map_or_die(kPage + below + size));
    mprotect(p, kPage, PROT_NONE);
    raw.lo = reinterpret_cast<uintptr_t>(p) + kPage;
    raw.hi = raw.lo + below + size;
  }
  san::stack_mapped(raw.lo, raw.hi);
  return Stack{raw.lo + below, raw.hi};
}

void release_with_headroom(Stack s, size_t below) {
  san::UnseenScope unseen;
  Stack raw{s.lo - below, s.hi};
  san::stack_unmapped(raw.lo, raw.hi);
  if (config().verify) {
    release_verify(raw);
    return;
  }
  munmap(reinterpret_cast<void *>(raw.lo - kPage), kPage + raw.size());
  g_sys -= kPage + raw.size();
  g_released_total += kPage + raw.size(); // the OS's again, as in verify mode
}

// Makes g_free[c] non-empty: stacks released to the OS first (their pages
// come back zeroed on first touch), else a new chunk. Under g_lock.
void refill(int c, size_t size) {
  if (g_free[c])
    return;
  std::vector<uintptr_t> &rel = released_lists()[c];
  if (!rel.empty()) {
    size_t take = std::min<size_t>(rel.size(), kThreadCache);
    for (size_t i = 0; i < take; ++i) {
      FreeStack *f = link_of(rel.back(), size);
      rel.pop_back();
      f->next = g_free[c];
      g_free[c] = f;
    }
    g_sys += take * size;
    g_released_total -= take * size;
    return;
  }
  size_t chunk = kChunk > size ? kChunk : size;
  auto *base = static_cast<char *>(map_or_die(chunk));
  for (size_t off = chunk; off >= size; off -= size) {
    FreeStack *f = link_of(reinterpret_cast<uintptr_t>(base) + off - size,
                           size);
    f->next = g_free[c];
    g_free[c] = f;
  }
}

} // namespace

size_t round_stack_size(size_t bytes) {
  size_t s = COPYSTACK_MIN_STACK;
  while (s < bytes) {
    if (s > (SIZE_MAX >> 1))
      return 0;
    s <<= 1;
  }
  return s;
}

Stack allocate_stack(size_t size) {
  CS_CHECK(size >= COPYSTACK_MIN_STACK && (size & (size - 1)) == 0,
           "stack sizes are powers of two from COPYSTACK_MIN_STACK");
  g_inuse += size;
  if (san::separate_stacks())
    return allocate_with_headroom(size, san::stack_headroom());
  if (config().verify)
    return allocate_verify(size);
  Stack s;
  int c = class_of(size);
  if (size > kMaxPooled) {
    {
      std::lock_guard<std::mutex> g(g_lock);
      if (FreeStack *f = g_large[c]) {
        g_large[c] = f->next;
        g_large_bytes -= size;
        s.lo = lo_of(f, size);
        s.hi = s.lo + size;
        return s;
      }
    }
    s.lo = reinterpret_cast<uintptr_t>(map_or_die(size));
    s.hi = s.lo + size;
    return s;
  }
  StackCache &tc = thread_block<StackCache>(kSlotStackCache);
  if (tc.n[c] == 0) {
    std::lock_guard<std::mutex> g(g_lock);
    refill(c, size);
    while (tc.n[c] < cache_cap(c) / 2 + 1 && g_free[c]) {
      tc.items[c][tc.n[c]++] = g_free[c];
      g_free[c] = g_free[c]->next;
    }
  }
  FreeStack *f = tc.items[c][--tc.n[c]];
  s.lo = lo_of(f, size);
  s.hi = s.lo + size;
  return s;
}

void release_stack(Stack s, bool to_pool) {
  if (!s.lo)
    return;
  g_inuse -= s.size();
  if (san::separate_stacks()) {
    release_with_headroom(s, san::stack_headroom());
    return;
  }
  if (config().verify) {
    release_verify(s);
    return;
  }
  FreeStack *f = link_of(s.lo, s.size());
  int c = class_of(s.size());
  if (s.size() > kMaxPooled) {
    {
      std::lock_guard<std::mutex> g(g_lock);
      if (c < kLargeClasses && g_large_bytes + s.size() <= kLargeCacheBytes) {
        f->next = g_large[c];
        f->size = s.size();
        g_large[c] = f;
        g_large_bytes += s.size();
        return;
      }
    }
    munmap(reinterpret_cast<void *>(s.lo), s.size());
    g_sys -= s.size();
    return;
  }
  if (to_pool) {
    std::lock_guard<std::mutex> g(g_lock);
    f->next = g_free[c];
    g_free[c] = f;
    return;
  }
  StackCache &tc = thread_block<StackCache>(kSlotStackCache);
  if (tc.n[c] >= cache_cap(c)) {
    std::lock_guard<std::mutex> g(g_lock);
    while (tc.n[c] > cache_cap(c) / 2) {
      FreeStack *x = tc.items[c][--tc.n[c]];
      x->next = g_free[c];
      g_free[c] = x;
    }
  }
  tc.items[c][tc.n[c]++] = f;
}

uint64_t scavenge_stacks() {
  if (config().verify)
    return 0; // released stacks are fenced already
  std::vector<std::pair<uintptr_t, size_t>> ranges;
  std::vector<FreeStack *> large;
  // Taken off the free lists under the lock, given back to the OS without
  // it, and only then offered for reuse: a stack handed out between the two
  // would have its first frames zeroed under it.
  std::vector<uintptr_t> gone[kClasses];
  {
    std::lock_guard<std::mutex> g(g_lock);
    for (int c = 0; c < kClasses; ++c) {
      size_t size = size_t(COPYSTACK_MIN_STACK) << c;
      std::vector<uintptr_t> free;
      for (FreeStack *f = g_free[c]; f; f = f->next)
        free.push_back(lo_of(f, size));
      g_free[c] = nullptr;
      std::sort(free.begin(), free.end());
      for (size_t i = 1; i < free.size(); ++i)
        CS_CHECK(free[i] != free[i - 1], "a stack is free only once");
      std::vector<uintptr_t> kept;
      for (size_t i = 0; i < free.size(); ++i) {
        uintptr_t a = free[i];
        if (size >= kPage) {
          ranges.push_back({a, size});
          gone[c].push_back(a);
          continue;
        }
        // Stacks smaller than a page go back a page at a time, when every
        // stack in the page is free.
        size_t per_page = kPage / size;
        if ((a & (kPage - 1)) == 0 && i + per_page <= free.size() &&
            free[i + per_page - 1] == a + kPage - size) {
          ranges.push_back({a, kPage});
          for (size_t k = 0; k < per_page; ++k)
            gone[c].push_back(free[i + k]);
          i += per_page - 1;
          continue;
        }
        kept.push_back(a);
      }
      for (uintptr_t a : kept) {
        FreeStack *f = link_of(a, size);
        f->next = g_free[c];
        g_free[c] = f;
      }
    }
    for (int c = 0; c < kLargeClasses; ++c) {
      while (FreeStack *f = g_large[c]) {
        g_large[c] = f->next;
        large.push_back(f);
      }
    }
    g_large_bytes = 0;
  }
  // Neighbours go back in one call.
  std::sort(ranges.begin(), ranges.end());
  uint64_t bytes = 0;
  for (size_t i = 0; i < ranges.size();) {
    uintptr_t lo = ranges[i].first, hi = lo + ranges[i].second;
    size_t j = i + 1;
    while (j < ranges.size() && ranges[j].first == hi)
      hi += ranges[j++].second;
    madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTNEED);
    bytes += hi - lo;
    i = j;
  }
  for (FreeStack *f : large) {
    size_t size = f->size;
    munmap(reinterpret_cast<void *>(lo_of(f, size)), size);
    bytes += size;
  }
  g_sys -= bytes;
  g_released_total += bytes;
  std::lock_guard<std::mutex> g(g_lock);
  for (int c = 0; c < kClasses; ++c)
    released_lists()[c].insert(released_lists()[c].end(), gone[c].begin(), gone[c].end());
  return bytes;
}

uint64_t stack_bytes_released() { return g_released_total.load(); }

uint64_t stack_bytes_inuse() { return g_inuse.load(); }
uint64_t stack_bytes_sys() { return g_sys.load(); }

bool describe_fenced_address(uintptr_t addr, char *buf, size_t len) {
  if (!g_arena_lo || addr < g_arena_lo || addr >= g_arena_hi)
    return false;
  for (const Released &r : g_recent)
    if (r.hi && addr >= r.lo && addr < r.hi) {
      snprintf(buf, len,
               "%#lx is %lu bytes into the stack [%#lx, %#lx), which a task "
               "left when its stack was copied",
               (unsigned long)addr, (unsigned long)(addr - r.lo),
               (unsigned long)r.lo, (unsigned long)r.hi);
      return true;
    }
  snprintf(buf, len, "%#lx is in a stack that a task left when its stack "
           "was copied", (unsigned long)addr);
  return true;
}

void stack_alloc_fork_lock() {
  g_lock.lock();
  guarded_half().lock.lock();
  dense_half().lock.lock();
}

void stack_alloc_fork_unlock() {
  dense_half().lock.unlock();
  guarded_half().lock.unlock();
  g_lock.unlock();
}

} // namespace copystack_rt
