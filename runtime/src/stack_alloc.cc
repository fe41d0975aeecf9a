// stack_alloc.cc: power-of-two stacks from the OS (stack_alloc.h).
#include "stack_alloc.h"
#include "config.h"
#include "fatal.h"

#include "copystack/abi.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace copystack {

namespace {

constexpr size_t kPage = 4096;
// Stacks up to this size are carved from shared mappings; larger ones get
// their own, so that releasing them returns the memory to the OS at once.
constexpr size_t kMaxPooled = 64 * 1024;
// Each refill of a small size class maps this much (or one stack if larger).
constexpr size_t kChunk = 256 * 1024;
// Verify mode keeps this many released stacks fenced before unmapping them:
// enough to catch a stale pointer used well after the copy, few enough to
// stay under vm.max_map_count.
constexpr size_t kQuarantine = 1024;

constexpr int kClasses = 6; // 2K 4K 8K 16K 32K 64K

std::atomic<uint64_t> g_inuse{0};
std::atomic<uint64_t> g_sys{0};

struct FreeStack {
  FreeStack *next;
};

std::mutex g_lock;
FreeStack *g_free[kClasses];

struct Fenced {
  uintptr_t lo, hi;
};
Fenced g_fenced[kQuarantine];
size_t g_fenced_next;

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

Stack allocate_verify(size_t size) {
  // An inaccessible page below lo catches code that runs past the guard.
  auto *base = static_cast<char *>(map_or_die(size + kPage));
  if (mprotect(base, kPage, PROT_NONE) != 0)
    fatal("mprotect of a stack guard page failed: %s", strerror(errno));
  Stack s;
  s.lo = reinterpret_cast<uintptr_t>(base) + kPage;
  s.hi = s.lo + size;
  return s;
}

void release_verify(Stack s) {
  uintptr_t base = s.lo - kPage;
  size_t bytes = s.size() + kPage;
  if (mprotect(reinterpret_cast<void *>(base), bytes, PROT_NONE) != 0)
    fatal("mprotect of a released stack failed: %s", strerror(errno));
  std::lock_guard<std::mutex> g(g_lock);
  Fenced &slot = g_fenced[g_fenced_next % kQuarantine];
  if (slot.hi) {
    munmap(reinterpret_cast<void *>(slot.lo - kPage), slot.hi - slot.lo + kPage);
    g_sys -= slot.hi - slot.lo + kPage;
  }
  slot = Fenced{s.lo, s.hi};
  ++g_fenced_next;
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
  if (config().verify)
    return allocate_verify(size);
  Stack s;
  if (size > kMaxPooled) {
    s.lo = reinterpret_cast<uintptr_t>(map_or_die(size));
    s.hi = s.lo + size;
    return s;
  }
  int c = class_of(size);
  std::lock_guard<std::mutex> g(g_lock);
  if (!g_free[c]) {
    size_t chunk = kChunk > size ? kChunk : size;
    auto *base = static_cast<char *>(map_or_die(chunk));
    for (size_t off = chunk; off >= size; off -= size) {
      auto *f = reinterpret_cast<FreeStack *>(base + off - size);
      f->next = g_free[c];
      g_free[c] = f;
    }
  }
  FreeStack *f = g_free[c];
  g_free[c] = f->next;
  s.lo = reinterpret_cast<uintptr_t>(f);
  s.hi = s.lo + size;
  return s;
}

void release_stack(Stack s) {
  if (!s.lo)
    return;
  g_inuse -= s.size();
  if (config().verify) {
    release_verify(s);
    return;
  }
  if (s.size() > kMaxPooled) {
    munmap(reinterpret_cast<void *>(s.lo), s.size());
    g_sys -= s.size();
    return;
  }
  std::lock_guard<std::mutex> g(g_lock);
  auto *f = reinterpret_cast<FreeStack *>(s.lo);
  int c = class_of(s.size());
  f->next = g_free[c];
  g_free[c] = f;
}

uint64_t stack_bytes_inuse() { return g_inuse.load(); }
uint64_t stack_bytes_sys() { return g_sys.load(); }

bool describe_fenced_address(uintptr_t addr, char *buf, size_t len) {
  for (const Fenced &f : g_fenced) {
    if (f.hi && addr >= f.lo && addr < f.hi) {
      snprintf(buf, len, "%#lx is in a stack [%#lx, %#lx) that was copied "
               "away and released", (unsigned long)addr,
               (unsigned long)f.lo, (unsigned long)f.hi);
      return true;
    }
    if (f.hi && addr >= f.lo - kPage && addr < f.lo) {
      snprintf(buf, len, "%#lx is in the guard page below a released stack",
               (unsigned long)addr);
      return true;
    }
  }
  return false;
}

} // namespace copystack
