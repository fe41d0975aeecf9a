// stack_alloc.cc: power-of-two stacks from the OS (stack_alloc.h).
#include "platform/split_stack_notes.h"
#include "platform/thread_heap.h"
#include "core/stack_alloc.h"
#include "platform/config.h"
#include "platform/constants.h"
#include "platform/fatal.h"
#include "platform/once.h"
#include "platform/sanitizers.h"
#include "platform/valgrind.h"
#include "platform/stats.h"
#include "core/verify.h"

#include "copystack/abi.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <algorithm>
#include <deque>
#include <map>
#include <vector>
#include <sys/mman.h>
#include <unistd.h>

namespace copystack_rt {

namespace {

// Stacks up to this size are carved from shared mappings and kept per
// placement; larger ones get a slot of their own in a shared mapping, which
// serves any placement (large_lo()).
constexpr size_t kMaxPooled = 64 * 1024;
// Released large stacks are kept for reuse, up to this many bytes in all:
// a fresh mapping costs a page fault per 4 KiB touched, which is most of
// what a growth to 1 MiB costs. Beyond the cap their memory goes back to
// the OS; their slots stay, for reuse.
constexpr size_t kLargeCacheBytes = size_t(64) << 20;
constexpr int kLargeClasses = 40;
// Large slots come from chunks that hold twice as many slots as the
// class's last chunk did, up to this much address space (and at least one
// slot): a program with one large stack reserves little, and 100,000 tasks
// with 128 KiB stacks need some 300 mappings, not 100,000 (the kernel
// allows 65,530 by default, vm.max_map_count).
constexpr size_t kLargeChunkMax = size_t(64) << 20;
// Each refill of a small size class maps twice what its last one did, from
// kChunk up to kChunkMax: a program with a few tasks reserves 256 KiB a
// class, and 100,000 tasks with 64 KiB stacks about 800 mappings instead
// of 20,000 (vm.max_map_count allows 65,530; see kLargeChunkMax).
constexpr size_t kChunk = 256 * 1024;
constexpr size_t kChunkMax = size_t(8) << 20;
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
// A stack's top modulo kMoveAlign, in units of the smallest stack: the
// placement a replacement must match (stack_alloc.h).
constexpr int kResidues = kMoveAlign / COPYSTACK_MIN_STACK;
static_assert(kMoveAlign % kMaxPooled == 0,
              "pooled sizes divide the move alignment");

std::atomic<uint64_t> g_sys{0};
std::atomic<uint64_t> g_released_total{0};

int residue_of(uintptr_t top) {
  return static_cast<int>((top & (kMoveAlign - 1)) / COPYSTACK_MIN_STACK);
}

// The lowest address at or above a that is congruent to like modulo
// kMoveAlign (a itself when like is 0: any placement).
uintptr_t at_or_above(uintptr_t a, uintptr_t like) {
  return like ? a + ((like - a) & (kMoveAlign - 1)) : a;
}

size_t page_round(size_t n) { return (n + kPage - 1) & ~(kPage - 1); }

// Free stacks are kept by address, out of band: a link written into each
// free stack would make a page of it resident, and a chunk holds stacks for
// placements nobody may ask for.
struct Pool {
  // Small free stacks by class and by the residue of their top.
  std::vector<uintptr_t> free[kClasses][kResidues];
  // Free stacks whose memory went back to the OS (scavenge_stacks()):
  // reused after free ones and before new chunks are mapped. Each list is
  // sorted by address (taken from the top), for scavenge_stacks() to find
  // a stack's released neighbours.
  std::vector<uintptr_t> released[kClasses][kResidues];
  // Scavenges giving pages back outside the lock: the released lists are
  // not taken from meanwhile (take_pooled()), since pages a released stack
  // shares with a free one may be going back. (Collections scavenge one at
  // a time, and a fork waits for the one under way: sched/fork.cc.)
  int scavenging = 0;
  // Where a request for any placement looks first, per class.
  int next_any[kClasses] = {};
  // The size of each class's next chunk, once it has one (take_pooled()).
  size_t next_chunk[kClasses] = {};
  // Large stacks by class, each named by the start of its slot
  // (large_map()): released ones whose memory is kept (large_bytes in
  // all), ones whose memory went back to the OS, and the rest of the
  // class's newest chunk, never used, from bump to bump_end.
  struct Large {
    std::vector<uintptr_t> cached, released;
    uintptr_t bump = 0, bump_end = 0;
    size_t next_chunk_slots = 2;
  } large[kLargeClasses];
  size_t large_bytes = 0;
};
std::mutex g_lock;
// (Never destroyed: exit() runs static destructors while workers may still
// be releasing stacks. So for the verify arena below.)
Pool &pool() {
  static auto *p = new Pool;
  return *p;
}


// Per-thread caches of small stacks in front of the pool (Go keeps one per
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
// Under g_lock.
void give_to_pool(int c, uintptr_t lo) {
  size_t size = size_t(COPYSTACK_MIN_STACK) << c;
  pool().free[c][residue_of(lo + size)].push_back(lo);
}
struct StackCache {
  uintptr_t items[kClasses][kThreadCache]; // each stack's lo
  int n[kClasses] = {};
  ~StackCache() {
    std::lock_guard<std::mutex> g(g_lock);
    for (int c = 0; c < kClasses; ++c)
      while (n[c])
        give_to_pool(c, items[c][--n[c]]);
  }
};

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
  // like: 0, or base is congruent to it modulo kMoveAlign. *rw_lo: where
  // the caller's accessible range starts, base or lower: in the dense half
  // a stack placed past the end of the last one owns the gap between them
  // (accessible and never written), so that neighbours still merge into
  // one mapping.
  uintptr_t take(size_t bytes, size_t below, uintptr_t like,
                 uintptr_t *rw_lo) {
    std::lock_guard<san::QuietMutex> g(lock);
    size_t need = below + bytes;
    uintptr_t at = next, from = next;
    bool wrapped = false;
    for (;;) {
      from = at;
      at = at_or_above(at + below, like) - below;
      if (at + need > hi) {
        if (wrapped)
          fatal("verify mode has no room left for a %zu-byte stack in its "
                "%zu GiB of address space: live stacks fill it",
                bytes, (hi - lo) >> 30);
        wrapped = true;
        ++wraps;
        at = lo;
        continue;
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
    // The gap [from, at) is owned only when no live stack lies in it
    // (after a wrap it may hold fenced stacks, which then read as zeros
    // instead of faulting: reuse of their addresses is the same).
    uintptr_t own = at + below;
    if (!below && from < at) {
      auto it = live.lower_bound(from);
      bool free = it == live.end() || it->first >= at;
      if (free && it != live.begin() && std::prev(it)->second > from)
        free = false;
      if (free)
        own = from;
    }
    next = at + need;
    live.emplace(own, at + need);
    *rw_lo = own;
    return at + below;
  }

  // Forgets the live stack whose memory starts at base (or whose gap
  // starts below it).
  void give_back(uintptr_t base) {
    std::lock_guard<san::QuietMutex> g(lock);
    auto it = live.upper_bound(base);
    if (it != live.begin())
      live.erase(std::prev(it));
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

// Where stacks live in the address space. Every stack is carved from a
// reservation with kStackGap bytes of nothing (inaccessible, never handed
// to anyone) on both sides, so that no other object of the process lies
// within kStackGap of a stack. C code keeps pointers outside any object
// (lz4 and zstd keep `base = src - index` with a 32-bit index, below the
// buffer): placed by the kernel beside the program's own mappings, a stack
// could lie where such a pointer points, and the relocation, which takes
// any word inside the moving stack for an address in it, would move the
// pointer with the stack (docs/maps.md, "Addresses that only look like
// stack addresses"). With the gap, a pointer derived from any other object
// by less than kStackGap never points into a stack.
constexpr size_t kStackGap = size_t(64) << 30;
// The stacks of one reservation; more are reserved as they fill.
constexpr size_t kStackSpace = size_t(256) << 30;

struct StackSpace {
  uintptr_t next = 0, end = 0;
  bool warned = false;
  // Stack mappings given back whole (the sanitizers' separate stacks), by
  // size, for reuse: their address space stays reserved.
  std::map<size_t, std::vector<uintptr_t>> returned;
  san::QuietMutex lock;
};
StackSpace &stack_space() {
  static auto *s = new StackSpace;
  return *s;
}

// Reserves room for at least bytes (a multiple of kMoveAlign) with its
// gaps; false where the address space is limited (RLIMIT_AS) below that.
bool reserve_stack_space(StackSpace &sp, size_t bytes) {
  for (size_t want = std::max(bytes, kStackSpace); want >= bytes;
       want /= 2) {
    size_t len = kStackGap + want + kStackGap + kMoveAlign;
    void *p = mmap(nullptr, len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      continue;
    // Nothing of it is in a core dump (gdb's gcore wrote the reservation
    // out as zeros) until a stack is mapped in it.
    madvise(p, len, MADV_DONTDUMP);
    uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kStackGap +
                    kMoveAlign - 1) & ~(kMoveAlign - 1);
    sp.next = lo;
    sp.end = lo + want;
    return true;
  }
  return false;
}

// A fresh mapping of bytes whose start is aligned to kMoveAlign, inside
// the stacks' reservations. Not counted in g_sys: callers count the stack
// bytes they place in it (the rest is address space no stack touches).
uintptr_t map_aligned(size_t bytes) {
  bytes = (bytes + kMoveAlign - 1) & ~(kMoveAlign - 1);
  StackSpace &sp = stack_space();
  uintptr_t at = 0;
  {
    std::lock_guard<san::QuietMutex> g(sp.lock);
    auto it = sp.returned.find(bytes);
    if (it != sp.returned.end() && !it->second.empty()) {
      at = it->second.back();
      it->second.pop_back();
    } else if (sp.end - sp.next >= bytes || reserve_stack_space(sp, bytes)) {
      at = sp.next;
      sp.next += bytes;
    } else if (!sp.warned) {
      sp.warned = true;
      report("cannot reserve %zu GiB of address space for stacks (%s): "
             "stacks are placed beside other mappings, where a pointer "
             "outside its object can look like an address in a stack "
             "(docs/maps.md)",
             (kStackGap * 2 + bytes) >> 30,
             vg::running() ? "valgrind gives a program less"
                           : "is RLIMIT_AS set?");
    }
  }
  void *p = mmap(at ? reinterpret_cast<void *>(at) : nullptr,
                 at ? bytes : bytes + kMoveAlign, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                     (at ? MAP_FIXED : 0),
                 -1, 0);
  if (p == MAP_FAILED)
    fatal("cannot map %zu bytes for a stack: %s", bytes, strerror(errno));
  if (at)
    return at;
  uintptr_t raw = reinterpret_cast<uintptr_t>(p);
  uintptr_t a = (raw + kMoveAlign - 1) & ~(kMoveAlign - 1);
  if (a > raw)
    munmap(p, a - raw);
  if (raw + kMoveAlign > a)
    munmap(reinterpret_cast<void *>(a + bytes), raw + kMoveAlign - a);
  return a;
}

// Gives a mapping from map_aligned back whole: its memory to the OS, its
// address space to the reservation, for a mapping of the same size.
void unmap_aligned(uintptr_t at, size_t bytes) {
  bytes = (bytes + kMoveAlign - 1) & ~(kMoveAlign - 1);
  StackSpace &sp = stack_space();
  // Listed first, while the stack still reads: the list's malloc may unwind
  // the caller's frames (LeakSanitizer's, with fast_unwind_on_malloc=0),
  // which are on the stack being given back. Under the lock throughout, so
  // that no one takes the address before it is inaccessible.
  std::lock_guard<san::QuietMutex> g(sp.lock);
  sp.returned[bytes].push_back(at);
  void *p = mmap(reinterpret_cast<void *>(at), bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
                 0);
  if (p == MAP_FAILED)
    fatal("cannot give back a stack's mapping: %s", strerror(errno));
  madvise(p, bytes, MADV_DONTDUMP);
}

// A large stack (a multiple of kMoveAlign) lives in a slot of its size
// plus kMoveAlign, aligned to kMoveAlign, at the offset its placement asks
// for: so a cached slot serves any placement, and the slot's start is the
// stack's lo rounded down. Slots are never unmapped: a released one's
// memory goes back with MADV_DONTNEED, which keeps the mappings whole (an
// munmap in the middle of a chunk would split it in two).
size_t large_map_bytes(size_t size) { return size + kMoveAlign; }
uintptr_t large_lo(uintptr_t map, uintptr_t like_top) {
  return map + (like_top & (kMoveAlign - 1));
}
uintptr_t large_map(uintptr_t lo) { return lo & ~(kMoveAlign - 1); }

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
  // With the gaps every stack has (map_aligned()), below and above.
  void *p = mmap(nullptr, kStackGap + g_verify_arena + kStackGap, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    fatal("verify mode cannot reserve %zu GiB of address space for stacks: "
          "%s%s", (kStackGap * 2 + g_verify_arena) >> 30, strerror(errno),
          vg::running() ? " (valgrind gives a program less: run verify and "
                          "stress modes without it)"
                        : "");
  // The gaps are never used: out of core dumps.
  madvise(p, kStackGap, MADV_DONTDUMP);
  madvise(static_cast<char *>(p) + kStackGap + g_verify_arena, kStackGap,
          MADV_DONTDUMP);
  g_arena_lo = reinterpret_cast<uintptr_t>(p) + kStackGap;
  g_arena_hi = g_arena_lo + g_verify_arena;
  ArenaHalf &g = guarded_half(), &d = dense_half();
  g.lo = g.next = g_arena_lo;
  g.hi = d.lo = d.next = g_arena_lo + g_verify_arena / 2;
  d.hi = g_arena_hi;
  uint64_t max = read_max_map_count();
  // A guarded stack is two mappings (itself and its guard page); a fence
  // splits a run of packed stacks, two more. The rest of the process (its
  // libraries, heap, threads' stacks, pinned areas: about 3,000 in a test
  // with 100,000 tasks) and the splits that residue gaps make take the
  // margin: with half of what is left for fences, demo/tasks.cpp at -O0 in
  // stress + verify mode ran out of mappings now and then, and with a
  // third of what 4,096 left it still did on a 6.18 kernel (it peaked at
  // 59,500 of 65,530 mappings, and once went over).
  uint64_t reserved = 2 * kGuardedLive + 12288;
  g_fence_budget = max > reserved ? (max - reserved) / 3 : 0;
}

bool is_dense(uintptr_t lo) { return lo >= g_arena_lo + g_verify_arena / 2; }

Stack allocate_verify(size_t size, uintptr_t like_top) {
  g_arena_once.call(init_arena);
  // base is page-aligned; a placement that is not starts the stack 2 KiB
  // into its first page.
  size_t offset = like_top ? (like_top - size) & (kPage - 1) : 0;
  size_t pages = page_round(offset + size);
  uintptr_t like_base = like_top ? like_top - size - offset : 0;
  if (like_top && !like_base)
    like_base = kMoveAlign; // congruent to 0, and not "any"
  bool guarded = g_guarded_live.fetch_add(1) < kGuardedLive;
  uintptr_t base, rw_lo;
  if (guarded) {
    // An inaccessible page below lo catches code that runs past the guard.
    base = guarded_half().take(pages, kPage, like_base, &rw_lo);
  } else {
    g_guarded_live.fetch_sub(1);
    base = dense_half().take(pages, 0, like_base, &rw_lo);
  }
  Stack s;
  s.lo = base + offset;
  s.hi = s.lo + size;
  if (mprotect(reinterpret_cast<void *>(rw_lo), base + pages - rw_lo,
               PROT_READ | PROT_WRITE) != 0)
    fatal("mprotect of a verify-mode stack failed: %s (vm.max_map_count is "
          "%lu)", strerror(errno), (unsigned long)read_max_map_count());
  g_sys += size;
  return s;
}

void release_verify(Stack s) {
  uintptr_t base = s.lo & ~(kPage - 1);
  void *lo = reinterpret_cast<void *>(base);
  size_t pages = page_round(s.hi - base);
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
    guarded_half().give_back(base);
  } else {
    dense_half().give_back(base);
  }
  g_sys -= s.size();
  g_released_total += s.size(); // fenced: its memory is the OS's again
  g_recent[g_recent_next.fetch_add(1) % kRecent] = Released{s.lo, s.hi};
}

// Verify mode's reuse ring (COPYSTACK_VERIFY_REUSE=N, N > 0). A fenced
// stack and a fresh address for the next one cost two page-table updates
// (one with a TLB shootdown) and a page fault per page the copy touches;
// where those are slow (a virtual machine that shadows page tables: 20 to
// 40 us a move, and stress mode 500 times slower with verify than without)
// N trades some of the fence's reach for speed. A released stack of up to
// 1 MiB is filled with poison (0xdb) and queued, its address still
// reserved, and handed out again only after N later releases of its size
// and placement, and only if every byte of it is still poison: a byte
// changed is a write through a pointer into an old stack, and stops the
// program with its address. A read through such a pointer gets poison:
// used as a pointer, 0xdbdb... is not canonical and faults (verify.cc names
// it); used as data, the program's output differs from its plain build.
// What N gives up: a stale pointer first used more than N moves later
// reads or writes a live stack.
bool any_fits(size_t size, int residue);

constexpr size_t kMaxReused = size_t(1) << 20;
constexpr int kReuseClasses = 10; // 2 KiB .. 1 MiB
// The bytes all queues may hold: past it, a release fences the oldest of
// its own queue (the stack itself if the queue is otherwise empty). Without
// it, 2N stacks for each size and placement could hold gigabytes.
constexpr uint64_t kReuseCap = uint64_t(256) << 20;
struct ReuseRing {
  san::QuietMutex lock;
  // Each stack's lo, oldest first.
  std::deque<uintptr_t> q[kReuseClasses][kResidues];
  uint64_t bytes = 0; // what the queues hold
};
ReuseRing &reuse_ring() {
  static auto *r = new ReuseRing;
  return *r;
}

bool reusable(size_t size) {
  return config().verify_reuse && size <= kMaxReused &&
         (size & (size - 1)) == 0;
}

// Stops the program if [lo, lo + size) is not all poison.
void check_poison(uintptr_t lo, size_t size, const char *when) {
  constexpr uint64_t kWord = 0x0101010101010101ull * kPoison;
  const auto *w = reinterpret_cast<const uint64_t *>(lo);
  size_t n = size / 8, first = n;
  // A block at a time without a branch per word, so that it vectorizes:
  // stress + verify checks a whole stack at every reuse (a search that
  // stopped at the first difference was half of lz4's time there).
  constexpr size_t kBlock = 64;
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    uint64_t diff = 0;
    for (size_t k = 0; k < kBlock; ++k)
      diff |= w[i + k] ^ kWord;
    if (diff)
      break;
  }
  for (; i < n; ++i)
    if (w[i] != kWord) {
      first = i;
      break;
    }
  if (first == n)
    return;
  size_t last = first, words = 0;
  for (size_t i = first; i < n; ++i)
    if (w[i] != kWord) {
      last = i;
      ++words;
    }
  fatal("verify: %zu word(s) of the stack [%#lx, %#lx), which a task left "
        "when its stack was copied, were written after it left (the first at "
        "%#lx, %zu bytes in, now %#lx; the last %zu bytes in), found %s: a "
        "write through a pointer the relocation missed",
        words, (unsigned long)lo, (unsigned long)(lo + size),
        (unsigned long)(lo + first * 8), first * 8,
        (unsigned long)w[first], last * 8, when);
}

void fence_queued(Stack s) {
  check_poison(s.lo, s.size(), "when it was fenced");
  release_verify(s);
}

// A queued stack of this size whose top is congruent to like_top (any
// placement: 0) that N later ones have followed, or 0.
uintptr_t reuse_take(size_t size, uintptr_t like_top) {
  if (!reusable(size))
    return 0;
  const unsigned n = config().verify_reuse;
  const int c = class_of(size);
  uintptr_t lo = 0;
  {
    ReuseRing &r = reuse_ring();
    std::lock_guard<san::QuietMutex> g(r.lock);
    int from = like_top ? residue_of(like_top) : 0;
    int to = like_top ? from + 1 : kResidues;
    for (int k = from; k < to && !lo; ++k) {
      std::deque<uintptr_t> &q = r.q[c][k];
      if (q.size() > n && (like_top || any_fits(size, k))) {
        lo = q.front();
        q.pop_front();
        r.bytes -= size;
      }
    }
  }
  if (lo)
    check_poison(lo, size, "when its address was reused");
  return lo;
}

// Poisons s and queues it; false if verify mode fences it instead. A
// queue twice N long, or one release past kReuseCap, fences the queue's
// oldest stacks.
bool reuse_put(Stack s) {
  if (!reusable(s.size()))
    return false;
  const size_t size = s.size();
  san::fill_unseen(reinterpret_cast<void *>(s.lo), kPoison, size);
  const unsigned n = config().verify_reuse;
  uintptr_t evicted = 0;
  {
    ReuseRing &r = reuse_ring();
    std::lock_guard<san::QuietMutex> g(r.lock);
    std::deque<uintptr_t> &q = r.q[class_of(size)][residue_of(s.hi)];
    q.push_back(s.lo);
    r.bytes += size;
    // One eviction restores both bounds: the queue was at most 2N long,
    // the bytes at most the cap, and the one evicted is this stack's size.
    if (q.size() > 2 * size_t(n) || r.bytes > kReuseCap) {
      evicted = q.front();
      q.pop_front();
      r.bytes -= size;
    }
  }
  if (evicted)
    fence_queued(Stack{evicted, evicted + size});
  return true;
}

// A collection fences every queued stack (scavenge_stacks()): memory
// given back as in every other mode. Returns the bytes.
uint64_t reuse_drain() {
  std::vector<Stack> all;
  {
    ReuseRing &r = reuse_ring();
    std::lock_guard<san::QuietMutex> g(r.lock);
    for (int c = 0; c < kReuseClasses; ++c)
      for (std::deque<uintptr_t> &q : r.q[c]) {
        for (uintptr_t lo : q)
          all.push_back(Stack{lo, lo + (size_t(COPYSTACK_MIN_STACK) << c)});
        q.clear();
      }
    r.bytes = 0;
  }
  uint64_t bytes = 0;
  for (const Stack &st : all) {
    fence_queued(st);
    bytes += st.size();
  }
  return bytes;
}

// Under ASan or TSan, whose checks run in place on task stacks
// (platform/sanitizers.h), every stack has the sanitizers' headroom below
// it: lo - below is the lowest byte of its memory, and below that at least
// one inaccessible page (verify mode's arena has its own). Under
// LeakSanitizer alone there is no headroom (below is 0), but stacks are
// mapped one by one too, so that each is a root region while it is in use.
// Each stack is a mapping of its own, aligned to kMoveAlign and handed back
// to the OS when released, so that the sanitizers see its memory come and
// go (TSan forgets what other tasks did there); LeakSanitizer scans it for
// pointers while it is in use.
size_t headroom_map_bytes(size_t size, size_t below) {
  return page_round(kPage + below + size) + kMoveAlign;
}

Stack allocate_with_headroom(size_t size, size_t below, uintptr_t like_top) {
  // The runtime's own bookkeeping (verify mode's arena: a std::map under a
  // quiet lock), which TSan must not take for the task's accesses.
  san::UnseenScope unseen;
  Stack raw;
  if (config().verify) {
    raw = allocate_verify(size + below, like_top);
  } else {
    uintptr_t map = map_aligned(headroom_map_bytes(size, below));
    raw.hi = at_or_above(map + kPage + below + size, like_top);
    raw.lo = raw.hi - size - below;
    mprotect(reinterpret_cast<void *>(map), (raw.lo & ~(kPage - 1)) - map,
             PROT_NONE);
    g_sys += kPage + raw.size();
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
  uintptr_t map = (raw.lo - kPage) & ~(kMoveAlign - 1);
  unmap_aligned(map, headroom_map_bytes(s.size(), below));
  g_sys -= kPage + raw.size();
  g_released_total += kPage + raw.size(); // the OS's again, as in verify mode
}

// A request for any placement takes a stack of a page or more only at a
// page boundary: a spawned task's stack is then as growths always made
// them (and its pages its own).
bool any_fits(size_t size, int residue) {
  return size < kPage ||
         (size_t(residue) * COPYSTACK_MIN_STACK) % kPage == 0;
}

// One stack of class c whose top has residue k (k < 0: any) from the pool:
// a free one, else one whose memory went back to the OS (its pages come
// back zeroed on first touch), else from a new chunk. Under g_lock.
uintptr_t take_pooled(int c, int k) {
  Pool &p = pool();
  size_t size = size_t(COPYSTACK_MIN_STACK) << c;
  auto take = [&](std::vector<uintptr_t> *lists, int from, int n,
                  uintptr_t &lo) {
    for (int i = 0; i < n; ++i) {
      int j = (from + i) % kResidues;
      if (k < 0 && !any_fits(size, j))
        continue;
      std::vector<uintptr_t> &v = lists[j];
      if (!v.empty()) {
        lo = v.back();
        v.pop_back();
        if (k < 0)
          p.next_any[c] = j;
        return true;
      }
    }
    return false;
  };
  int from = k < 0 ? p.next_any[c] : k, n = k < 0 ? kResidues : 1;
  uintptr_t lo;
  if (take(p.free[c], from, n, lo))
    return lo;
  if (!p.scavenging && take(p.released[c], from, n, lo)) {
    g_sys += size;
    g_released_total -= size;
    return lo;
  }
  // A new chunk, its stacks placed so that their tops take residue k: one
  // in every kMoveAlign of it, and the stacks between them the residues
  // that differ from k by multiples of the size.
  size_t chunk = std::max(p.next_chunk[c], kChunk);
  p.next_chunk[c] = std::min(chunk * 2, kChunkMax);
  uintptr_t map = map_aligned(chunk + size);
  uintptr_t want = size_t(k < 0 ? 0 : k) * COPYSTACK_MIN_STACK;
  for (uintptr_t at = map + (want & (size - 1)); at + size <= map + chunk + size;
       at += size) {
    give_to_pool(c, at);
    g_sys += size;
  }
  CS_CHECK(take(p.free[c], k < 0 ? 0 : k, 1, lo),
           "a new chunk holds a stack of every placement it was made for");
  return lo;
}

// The slot of a large stack of class c: a cached one, else one whose
// memory went back to the OS, else the next of the class's newest chunk.
uintptr_t take_large(int c, size_t size) {
  CS_CHECK(c < kLargeClasses, "a stack size has a class");
  size_t slot = large_map_bytes(size);
  std::lock_guard<std::mutex> g(g_lock);
  Pool &p = pool();
  Pool::Large &l = p.large[c];
  uintptr_t map;
  if (!l.cached.empty()) {
    map = l.cached.back();
    l.cached.pop_back();
    p.large_bytes -= size;
    return map;
  }
  if (!l.released.empty()) {
    map = l.released.back();
    l.released.pop_back();
    g_released_total -= size;
  } else {
    if (l.bump == l.bump_end) {
      size_t n = l.next_chunk_slots;
      if (n > 1 && n * slot > kLargeChunkMax)
        n = std::max<size_t>(1, kLargeChunkMax / slot);
      else
        l.next_chunk_slots = n * 2;
      l.bump = map_aligned(n * slot);
      l.bump_end = l.bump + n * slot;
    }
    map = l.bump;
    l.bump += slot;
  }
  g_sys += size;
  return map;
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

namespace {

Stack take_stack(size_t size, uintptr_t like_top) {
  CS_CHECK(size >= COPYSTACK_MIN_STACK && (size & (size - 1)) == 0,
           "stack sizes are powers of two from COPYSTACK_MIN_STACK");
  counter_add(Counter::kStackInUse, static_cast<int64_t>(size));
  if (san::separate_stacks())
    return allocate_with_headroom(size, san::stack_headroom(), like_top);
  if (config().verify) {
    if (uintptr_t lo = reuse_take(size, like_top))
      return Stack{lo, lo + size};
    return allocate_verify(size, like_top);
  }
  Stack s;
  int c = class_of(size);
  if (size > kMaxPooled) {
    s.lo = large_lo(take_large(c, size), like_top);
    s.hi = s.lo + size;
    return s;
  }
  StackCache &tc = thread_block<StackCache>(kSlotStackCache);
  int k = like_top ? residue_of(like_top) : -1;
  // This thread's cache first: the newest stack that fits.
  for (int i = tc.n[c] - 1; i >= 0; --i) {
    uintptr_t lo = tc.items[c][i];
    if (k < 0 ? any_fits(size, residue_of(lo + size))
              : residue_of(lo + size) == k) {
      tc.items[c][i] = tc.items[c][--tc.n[c]];
      s.lo = lo;
      s.hi = lo + size;
      return s;
    }
  }
  std::lock_guard<std::mutex> g(g_lock);
  if (k < 0) // a spawn: fill half the cache while holding the lock
    while (tc.n[c] < cache_cap(c) / 2)
      tc.items[c][tc.n[c]++] = take_pooled(c, -1);
  s.lo = take_pooled(c, k);
  s.hi = s.lo + size;
  return s;
}

void give_back_stack(Stack s, bool to_pool) {
  counter_add(Counter::kStackInUse, -static_cast<int64_t>(s.size()));
  if (san::separate_stacks()) {
    release_with_headroom(s, san::stack_headroom());
    return;
  }
  if (config().verify) {
    if (!reuse_put(s))
      release_verify(s);
    return;
  }
  int c = class_of(s.size());
  if (s.size() > kMaxPooled) {
    uintptr_t map = large_map(s.lo);
    {
      std::lock_guard<std::mutex> g(g_lock);
      Pool &p = pool();
      if (p.large_bytes + s.size() <= kLargeCacheBytes) {
        p.large[c].cached.push_back(map);
        p.large_bytes += s.size();
        return;
      }
    }
    // Its memory goes back to the OS (outside the lock) before its slot is
    // listed for reuse: listed first, it could be handed out and then
    // zeroed under its new task.
    madvise(reinterpret_cast<void *>(map), large_map_bytes(s.size()),
            MADV_DONTNEED);
    g_sys -= s.size();
    g_released_total += s.size();
    std::lock_guard<std::mutex> g(g_lock);
    pool().large[c].released.push_back(map);
    return;
  }
  if (to_pool) {
    std::lock_guard<std::mutex> g(g_lock);
    give_to_pool(c, s.lo);
    return;
  }
  StackCache &tc = thread_block<StackCache>(kSlotStackCache);
  if (tc.n[c] >= cache_cap(c)) {
    std::lock_guard<std::mutex> g(g_lock);
    while (tc.n[c] > cache_cap(c) / 2)
      give_to_pool(c, tc.items[c][--tc.n[c]]);
  }
  tc.items[c][tc.n[c]++] = s.lo;
}

} // namespace

Stack allocate_stack(size_t size, uintptr_t like_top) {
  Stack s = take_stack(size, like_top);
  vg::stack_in_use(s.lo, s.hi);
  return s;
}

void release_stack(Stack s, bool to_pool) {
  if (!s.lo)
    return;
  vg::stack_released(s.lo, s.hi);
  give_back_stack(s, to_pool);
}

uint64_t scavenge_stacks() {
  if (config().verify)
    return reuse_drain(); // other released stacks are fenced already
  std::vector<std::pair<uintptr_t, size_t>> ranges;
  std::vector<uintptr_t> large[kLargeClasses]; // cached slots
  // Taken off the free lists under the lock, given back to the OS without
  // it, and only then offered for reuse: a stack handed out between the two
  // would have its first frames zeroed under it.
  std::vector<uintptr_t> gone[kClasses];
  uint64_t bytes = 0;
  {
    std::lock_guard<std::mutex> g(g_lock);
    Pool &p = pool();
    for (int c = 0; c < kClasses; ++c) {
      size_t size = size_t(COPYSTACK_MIN_STACK) << c;
      std::vector<uintptr_t> free;
      for (std::vector<uintptr_t> &v : p.free[c]) {
        free.insert(free.end(), v.begin(), v.end());
        v.clear();
      }
      if (free.empty())
        continue;
      std::sort(free.begin(), free.end());
      for (size_t i = 1; i < free.size(); ++i)
        CS_CHECK(free[i] != free[i - 1], "a stack is free only once");
      // A stack under a page, or one placed 2 KiB off a page boundary (a
      // task spawned on the lower half of a page keeps that placement as
      // it grows), shares its end pages with its neighbours: such a page
      // goes back once its neighbour is free or released too. (Giving
      // back only the pages wholly inside each stack kept a page per task
      // per shrink resident.) A page goes back only if every stack on it
      // is listed, so each free one that shares it goes back with it.
      auto listed = [&](uintptr_t a) {
        if (std::binary_search(free.begin(), free.end(), a))
          return true;
        const std::vector<uintptr_t> &v = p.released[c][residue_of(a + size)];
        return std::binary_search(v.begin(), v.end(), a);
      };
      for (uintptr_t a : free) {
        uintptr_t x = a & ~(kPage - 1), y = page_round(a + size);
        if (x < a && !listed(a - size))
          x += kPage;
        if (y > a + size && !listed(a + size))
          y -= kPage;
        if (y <= x) { // every page it touches is shared with a stack in use
          give_to_pool(c, a);
          continue;
        }
        ranges.push_back({x, y - x});
        gone[c].push_back(a);
        bytes += size;
      }
    }
    // Until the pages are back, no released stack may be handed out.
    ++p.scavenging;
    for (int c = 0; c < kLargeClasses; ++c)
      large[c].swap(p.large[c].cached);
    p.large_bytes = 0;
  }
  // Neighbours go back in one call (neighbours' ranges share a page when
  // it lies across both).
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 0; i < ranges.size();) {
    uintptr_t lo = ranges[i].first, hi = lo + ranges[i].second;
    size_t j = i + 1;
    for (; j < ranges.size() && ranges[j].first <= hi; ++j)
      hi = std::max(hi, ranges[j].first + ranges[j].second);
    madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTNEED);
    i = j;
  }
  for (int c = 0; c < kLargeClasses; ++c) {
    size_t size = size_t(COPYSTACK_MIN_STACK) << c;
    for (uintptr_t map : large[c]) {
      madvise(reinterpret_cast<void *>(map), large_map_bytes(size),
              MADV_DONTNEED);
      bytes += size;
    }
  }
  g_sys -= bytes;
  g_released_total += bytes;
  std::lock_guard<std::mutex> g(g_lock);
  Pool &p = pool();
  for (int c = 0; c < kClasses; ++c) {
    size_t size = size_t(COPYSTACK_MIN_STACK) << c;
    // Into the sorted lists: gone[c] is sorted, so each list is two sorted
    // runs to merge.
    size_t before[kResidues];
    for (int k = 0; k < kResidues; ++k)
      before[k] = p.released[c][k].size();
    for (uintptr_t a : gone[c])
      p.released[c][residue_of(a + size)].push_back(a);
    for (int k = 0; k < kResidues; ++k) {
      std::vector<uintptr_t> &v = p.released[c][k];
      std::inplace_merge(v.begin(), v.begin() + before[k], v.end());
    }
  }
  --p.scavenging;
  for (int c = 0; c < kLargeClasses; ++c)
    p.large[c].released.insert(p.large[c].released.end(), large[c].begin(),
                               large[c].end());
  return bytes;
}

uint64_t stack_bytes_released() { return g_released_total.load(); }

uint64_t stack_bytes_inuse() {
  return static_cast<uint64_t>(counter_load(Counter::kStackInUse));
}
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
  stack_space().lock.lock();
  reuse_ring().lock.lock();
  guarded_half().lock.lock();
  dense_half().lock.lock();
}

void stack_alloc_fork_unlock() {
  dense_half().lock.unlock();
  guarded_half().lock.unlock();
  reuse_ring().lock.unlock();
  stack_space().lock.unlock();
  g_lock.unlock();
}

} // namespace copystack_rt
