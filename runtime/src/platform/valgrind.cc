// valgrind.cc: task stacks registered with valgrind (valgrind.h).
#include "platform/valgrind.h"

#if __has_include(<valgrind/valgrind.h>) && __has_include(<valgrind/memcheck.h>)
#define COPYSTACK_HAVE_VALGRIND 1
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>
#endif

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace copystack_rt {
namespace vg {

namespace {

// 0 unknown, 1 not under valgrind, 2 under valgrind.
std::atomic<int> g_running{0};

#ifdef COPYSTACK_HAVE_VALGRIND
// Valgrind's id for each registered stack, by its lowest address: what
// deregistering takes. Only under valgrind, which runs one thread at a
// time anyway.
std::mutex &ids_lock() {
  static std::mutex *m = new std::mutex;
  return *m;
}
std::unordered_map<uintptr_t, unsigned> &ids() {
  static auto *m = new std::unordered_map<uintptr_t, unsigned>;
  return *m;
}
#endif

} // namespace

bool running() {
  int r = g_running.load(std::memory_order_relaxed);
  if (__builtin_expect(r == 0, 0)) {
#ifdef COPYSTACK_HAVE_VALGRIND
    r = RUNNING_ON_VALGRIND ? 2 : 1;
#else
    r = 1;
#endif
    g_running.store(r, std::memory_order_relaxed);
  }
  return r == 2;
}

void stack_in_use_slow(uintptr_t lo, uintptr_t hi) {
#ifdef COPYSTACK_HAVE_VALGRIND
  // A stack handed out again held another task's frames, which memcheck
  // made inaccessible as that task returned from them: the new task's
  // frames (a copy writes them all at once) are addressable, and undefined
  // until written.
  VALGRIND_MAKE_MEM_UNDEFINED(lo, hi - lo);
  unsigned id = VALGRIND_STACK_REGISTER(lo, hi - 1);
  std::lock_guard<std::mutex> g(ids_lock());
  ids()[lo] = id;
#else
  (void)lo;
  (void)hi;
#endif
}

void stack_released_slow(uintptr_t lo, uintptr_t hi) {
#ifdef COPYSTACK_HAVE_VALGRIND
  (void)hi;
  unsigned id;
  {
    std::lock_guard<std::mutex> g(ids_lock());
    auto it = ids().find(lo);
    if (it == ids().end())
      return;
    id = it->second;
    ids().erase(it);
  }
  VALGRIND_STACK_DEREGISTER(id);
#else
  (void)lo;
  (void)hi;
#endif
}

void KeepDefinedness::save_slow(uintptr_t src, size_t n) {
#ifdef COPYSTACK_HAVE_VALGRIND
  auto *bits = static_cast<unsigned char *>(malloc(n));
  if (!bits)
    return; // memcheck then reports what the copy reads
  // 1: every byte addressable, its bits saved.
  if (VALGRIND_GET_VBITS(src, bits, n) != 1) {
    free(bits);
    return;
  }
  VALGRIND_MAKE_MEM_DEFINED(src, n);
  bits_ = bits;
  n_ = n;
#else
  (void)src;
  (void)n;
#endif
}

void KeepDefinedness::restore_slow(uintptr_t dst) {
#ifdef COPYSTACK_HAVE_VALGRIND
  VALGRIND_SET_VBITS(dst, bits_, n_);
#else
  (void)dst;
#endif
}

KeepDefinedness::~KeepDefinedness() { free(bits_); }

} // namespace vg
} // namespace copystack_rt
