// valgrind.cc: task stacks registered with valgrind (valgrind.h).
#include "platform/valgrind.h"

#if __has_include(<valgrind/valgrind.h>) && __has_include(<valgrind/memcheck.h>)
#define COPYSTACK_HAVE_VALGRIND 1
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>
#endif

#include <cstdlib>
#include <pthread.h>
#include <mutex>
#include <unordered_map>

namespace copystack_rt {
namespace vg {

namespace {

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

int g_running = 0;

int running_slow() {
#ifdef COPYSTACK_HAVE_VALGRIND
  int r = RUNNING_ON_VALGRIND ? 2 : 1;
#else
  int r = 1;
#endif
  __atomic_store_n(&g_running, r, __ATOMIC_RELAXED);
  return r;
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

void KeepDefinedness::free_bits() { free(bits_); }

namespace {

// The calling thread's stack, as its attributes give it.
bool own_stack(uintptr_t *lo, uintptr_t *hi) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return false;
  void *addr;
  size_t size;
  bool ok = pthread_attr_getstack(&attr, &addr, &size) == 0;
  pthread_attr_destroy(&attr);
  *lo = reinterpret_cast<uintptr_t>(addr);
  *hi = *lo + size;
  return ok;
}

} // namespace

#ifdef COPYSTACK_HAVE_VALGRIND
namespace {
struct ThreadStack {
  uintptr_t lo;
  unsigned id;
};
// The registered thread stacks, by thread (pthread_self()).
std::unordered_map<uintptr_t, ThreadStack> &thread_ids() {
  static auto *m = new std::unordered_map<uintptr_t, ThreadStack>;
  return *m;
}
} // namespace
#endif

void thread_runs_tasks_slow() {
#ifdef COPYSTACK_HAVE_VALGRIND
  // Asked at every switch to a task, so by thread, not by stack: finding
  // a thread's stack reads /proc/self/maps for the initial thread.
  const uintptr_t self = static_cast<uintptr_t>(pthread_self());
  {
    std::lock_guard<std::mutex> g(ids_lock());
    if (thread_ids().count(self))
      return;
  }
  uintptr_t lo, hi;
  if (!own_stack(&lo, &hi))
    return;
  unsigned id = VALGRIND_STACK_REGISTER(lo, hi - 1);
  std::lock_guard<std::mutex> g(ids_lock());
  thread_ids()[self] = ThreadStack{lo, id};
#endif
}

void thread_done_slow() {
#ifdef COPYSTACK_HAVE_VALGRIND
  const uintptr_t self = static_cast<uintptr_t>(pthread_self());
  unsigned id;
  {
    std::lock_guard<std::mutex> g(ids_lock());
    auto it = thread_ids().find(self);
    if (it == thread_ids().end())
      return;
    id = it->second.id;
    thread_ids().erase(it);
  }
  VALGRIND_STACK_DEREGISTER(id);
#endif
}

void fork_lock() {
#ifdef COPYSTACK_HAVE_VALGRIND
  if (running())
    ids_lock().lock();
#endif
}

void fork_unlock() {
#ifdef COPYSTACK_HAVE_VALGRIND
  if (running())
    ids_lock().unlock();
#endif
}

} // namespace vg
} // namespace copystack_rt
