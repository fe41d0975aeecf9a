// sanitizers.cc: the sanitizers' view of tasks (sanitizers.h).
//
// The interfaces used here are the sanitizers' public ones
// (<sanitizer/common_interface_defs.h>, <sanitizer/tsan_interface.h>,
// <sanitizer/lsan_interface.h>), declared weak instead of included: a
// program without the sanitizer leaves them null.
#include "platform/split_stack_notes.h"
#include "platform/sanitizers.h"
#include "platform/fatal.h"
#include "platform/spinlock.h"
#include "platform/thread_heap.h"

#include <cstdlib>
#include <dlfcn.h>
#include <cstring>
#include <mutex>
#include <pthread.h>

#define WEAK __attribute__((weak))

extern "C" {
WEAK void __sanitizer_start_switch_fiber(void **fake_stack_save,
                                         const void *bottom, size_t size);
WEAK void __sanitizer_finish_switch_fiber(void *fake_stack_save,
                                          const void **bottom_old,
                                          size_t *size_old);
WEAK void *__tsan_get_current_fiber();
WEAK void *__tsan_create_fiber(unsigned flags);
WEAK void __tsan_destroy_fiber(void *fiber);
WEAK void __tsan_switch_to_fiber(void *fiber, unsigned flags);
WEAK void __tsan_set_fiber_name(void *fiber, const char *name);
WEAK void __tsan_acquire(void *addr);
WEAK void __tsan_ignore_thread_begin();
WEAK void __tsan_ignore_thread_end();
WEAK void __tsan_release(void *addr);
WEAK void __tsan_func_entry(void *call_pc);
WEAK void __tsan_func_exit();
WEAK void __tsan_mutex_destroy(void *addr, unsigned flags);
WEAK void __tsan_mutex_pre_lock(void *addr, unsigned flags);
WEAK void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion);
WEAK int __tsan_mutex_pre_unlock(void *addr, unsigned flags);
WEAK void __tsan_mutex_post_unlock(void *addr, unsigned flags);
WEAK void AnnotateIgnoreSyncBegin(const char *file, int line);
WEAK void AnnotateIgnoreSyncEnd(const char *file, int line);
WEAK extern int __asan_option_detect_stack_use_after_return;
WEAK void __lsan_ignore_object(const void *p);
WEAK void __lsan_register_root_region(const void *p, size_t size);
WEAK void __lsan_unregister_root_region(const void *p, size_t size);
}

// The functions that switch TSan's fibers, and those switch.S calls on
// the thread's stack, are not instrumented even when the runtime is built
// with TSan (COPYSTACK_SANITIZE): an instrumented function would enter on
// one fiber's shadow stack and leave from another's. (no_sanitize alone
// keeps TSan's function entry and exit hooks.)
#define NO_TSAN                                                               \
  __attribute__((no_sanitize("thread"), disable_sanitizer_instrumentation))

namespace copystack_rt {
namespace san {

namespace {

// Below every task stack when ASan or TSan is linked: their checks run in
// place, and their reports are the deepest of what they do there (an ASan
// report measured 10.5 KiB of stack, a TSan race report 4 KiB, both with
// symbolization). Six times ASan's: address space, touched only by a
// report.
constexpr size_t kHeadroom = 64 * 1024;

// __tsan_switch_to_fiber_no_sync: switching tasks does not order them
// (tasks order each other through the primitives, as goroutines do). The
// runtime built with TSan itself (COPYSTACK_SANITIZE=thread, its unit tests)
// hands its own state across every switch: there, switches synchronize.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COPYSTACK_TSAN_RUNTIME 1
#endif
#endif
#ifdef COPYSTACK_TSAN_RUNTIME
constexpr unsigned kSwitchFlags = 0;
#else
constexpr unsigned kSwitchFlags = 1;
#endif

// What a task running on a thread is to the sanitizers. A task that runs
// another bound to the same thread (copystack_run from a task) saves its
// own in the inner task's state and gets it back when the inner one ends.
struct Running {
  struct TaskState *task = nullptr;
  // ASan: the task's stack as declared, headroom included.
  const void *bottom = nullptr;
  size_t size = 0;
  // During a foreign call (ASan): the task's fake stack, set aside while
  // the thread's own is current.
  void *task_fake = nullptr;
  bool in_foreign = false;
  // TSan: the fiber to go back to when the task leaves the thread.
  void *return_fiber = nullptr;
};

// One per task, from its creation to its end: a fresh heap block each
// time, so that TSan knows a task from the one that had its structure
// before (the runtime recycles task structures, which TSan cannot see).
struct TaskState {
  uint64_t id = 0;
  void *fake_stack = nullptr; // ASan, while the task does not run
  void *fiber = nullptr;      // TSan
  Running outer;              // what ran on the thread before this task
  // Under TSan, a C++ task's small callable lives here rather than in the
  // recycled task structure (COPYSTACK_CLOSURE_BYTES, copystack.h).
  alignas(16) unsigned char closure[32];
};

struct ThreadState {
  // ASan: the thread's own stack and, while a task runs, its fake stack.
  const void *bottom = nullptr;
  size_t size = 0;
  void *thread_fake = nullptr;
  // TSan: the thread's own fiber, current while no task runs on it.
  void *thread_fiber = nullptr;
  // TSan: the thread's start, released to this address once, before the
  // first task runs on it; every task acquires it there (enter_task).
  bool start_released = false;
  Running run;
};
// On the heap, reached through the Thread (platform/thread_heap.h): the
// runtime's static TLS must stay small.
ThreadState &san_thread() {
  return thread_block<ThreadState>(kSlotSanitizers);
}

// Task -> its TaskState. Task structures are never freed, so keys stay and
// only values change; an open-addressing table under a spin lock (which no
// sanitizer sees: a mutex would order every task switch for TSan).
class TaskTable {
public:
  TaskState *get(const void *key) {
    std::lock_guard<SpinLock> g(lock_);
    Entry *e = find(key);
    return e && e->key == key ? e->value : nullptr;
  }
  TaskState *get_or_create(const void *key) {
    std::lock_guard<SpinLock> g(lock_);
    if ((used_ + 1) * 2 > cap_)
      grow();
    Entry *e = find(key);
    if (!e->key) {
      e->key = key;
      ++used_;
    }
    if (!e->value)
      e->value = new TaskState;
    return e->value;
  }
  TaskState *take(const void *key) {
    std::lock_guard<SpinLock> g(lock_);
    Entry *e = find(key);
    if (!e || e->key != key)
      return nullptr;
    TaskState *s = e->value;
    e->value = nullptr;
    return s;
  }

private:
  struct Entry {
    const void *key;
    TaskState *value;
  };
  SpinLock lock_;
  Entry *slots_ = nullptr;
  size_t cap_ = 0, used_ = 0;

  Entry *find(const void *key) {
    if (!cap_)
      return nullptr;
    size_t i = (reinterpret_cast<uintptr_t>(key) >> 4) * 0x9e3779b97f4a7c15u >>
               32;
    for (;; ++i) {
      Entry *e = &slots_[i & (cap_ - 1)];
      if (e->key == key || !e->key)
        return e;
    }
  }
  void grow() {
    Entry *old = slots_;
    size_t n = cap_;
    cap_ = cap_ ? cap_ * 2 : 1024;
    slots_ = static_cast<Entry *>(calloc(cap_, sizeof(Entry)));
    if (!slots_)
      fatal("out of memory for the sanitizers' task table");
    for (size_t i = 0; i < n; ++i)
      if (old[i].key)
        *find(old[i].key) = old[i];
    free(old);
  }
};

// "copystack task N", TSan's name for the task's fiber in its reports.
// Written by hand: snprintf is one of TSan's interceptors, and a buffer on
// this thread's stack written by one task's fiber and then another's would
// look like a race to it.
struct FiberName {
  char text[40];
};
FiberName fiber_name(uint64_t id) {
  FiberName n;
  static const char kPrefix[] = "copystack task ";
  char digits[24];
  int nd = 0;
  do {
    digits[nd++] = static_cast<char>('0' + id % 10);
    id /= 10;
  } while (id);
  size_t at = 0;
  for (const char *p = kPrefix; *p; ++p)
    n.text[at++] = *p;
  while (nd)
    n.text[at++] = digits[--nd];
  n.text[at] = 0;
  return n;
}

TaskTable &tasks() {
  static auto *t = new TaskTable; // never destroyed: tasks may end at exit
  return *t;
}

void end_foreign_at_exit();

} // namespace

void *next_definition(const char *name, void *interceptor) {
  if (interceptor) {
    // Is the program's binding of name in this object (ours overrode the
    // sanitizer's)?
    Dl_info first, self;
    void *bound = dlsym(RTLD_DEFAULT, name);
    if (bound && dladdr(bound, &first) &&
        dladdr(reinterpret_cast<void *>(&next_definition), &self) &&
        first.dli_fbase == self.dli_fbase)
      return interceptor;
  }
  return dlsym(RTLD_NEXT, name);
}

bool separate_stacks() {
  return stack_headroom() != 0 || __lsan_register_root_region != nullptr;
}

size_t stack_headroom() {
#ifdef COPYSTACK_TSAN_RUNTIME
  // The runtime built with TSan runs its unit tests, whose tasks are not
  // built with it: nothing of TSan's runs on their stacks.
  return asan() ? kHeadroom : 0;
#else
  return asan() || tsan() ? kHeadroom : 0;
#endif
}

NO_TSAN void task_created(const void *key, uint64_t id) {
  if (!asan() && !tsan())
    return;
  // exit() called by a task runs in a foreign call, with TSan's ignores on
  // (__copystack_san_foreign_enter); TSan reports a thread that ends with
  // ignores on, and would fail the program. Registered after TSan's own
  // handler, this one runs before it.
  static bool registered = tsan() && atexit(end_foreign_at_exit) == 0;
  (void)registered;
  // ASan's fake frames (stack-use-after-return detection) each record the
  // real stack pointer of their function, and ASan frees every fake frame
  // whose record lies below the current stack pointer: after a task's stack
  // moves, records and stack pointer are on different stacks, and live
  // frames would be freed (false stack-use-after-return reports). Tasks
  // keep their frames on the stack or in the pinned area instead.
  if (&__asan_option_detect_stack_use_after_return &&
      __asan_option_detect_stack_use_after_return)
    __asan_option_detect_stack_use_after_return = 0;
  TaskState *s = tasks().get_or_create(key);
  s->id = id;
  if (tsan()) {
    // Created here, the fiber starts after everything its creator did, as
    // a thread starts after pthread_create (created where it first ran, it
    // would start after whatever that thread had seen).
    s->fiber = __tsan_create_fiber(0);
    __tsan_set_fiber_name(s->fiber, fiber_name(id).text);
    __tsan_release(s);
  }
}

void *task_closure(const void *key) {
  if (!tsan())
    return nullptr;
  return tasks().get_or_create(key)->closure;
}

NO_TSAN void enter_task_slow(const void *key, uintptr_t lo, uintptr_t hi) {
  ThreadState &th = san_thread();
  TaskState *s = tasks().get(key);
  CS_CHECK(s, "a task that runs was created (sanitizers.cc)");
  s->outer = th.run;
  th.run = Running{};
  th.run.task = s;
  if (tsan()) {
    th.run.return_fiber = __tsan_get_current_fiber();
    if (!s->outer.task)
      th.thread_fiber = th.run.return_fiber;
    // The thread's start (TSan imitates a write of its whole static TLS
    // there) happens before every task that runs on it: a task's errno
    // and thread_locals are the thread's. Released once, before the
    // thread's context acquires from any task (leave_task), so that this
    // orders no task after another.
    if (!th.start_released) {
      th.start_released = true;
      __tsan_release(&th.start_released);
    }
    __tsan_switch_to_fiber(s->fiber, kSwitchFlags);
    __tsan_acquire(&th.start_released);
    __tsan_acquire(s);
  }
  if (asan()) {
    uintptr_t bottom = lo - stack_headroom();
    th.run.bottom = reinterpret_cast<const void *>(bottom);
    th.run.size = hi - bottom;
    // The thread's fake stack is set aside; the task's becomes current
    // (ASan makes one the first time the task needs it).
    __sanitizer_start_switch_fiber(&th.thread_fake, th.run.bottom,
                                   th.run.size);
    __sanitizer_finish_switch_fiber(s->fake_stack, &th.bottom, &th.size);
    s->fake_stack = nullptr;
  }
}

int internal_threads() { return tsan() ? 1 : 0; }

// UnseenScopes open on this thread (ending_process closes them).
thread_local int t_unseen_depth;

// SignalScopes open on this thread.
thread_local int t_signal_depth;

// The thread's state, if it has one (nothing is made in a signal handler).
ThreadState *existing_san_thread() {
  return static_cast<ThreadState *>(
      __copystack_thread.slots.p[kSlotSanitizers]);
}

bool in_signal_handler() { return t_signal_depth > 0; }

NO_TSAN SignalScope::SignalScope() {
  ++t_signal_depth;
  if (!tsan())
    return;
  if (ThreadState *th = existing_san_thread()) {
    saved_in_foreign_ = th->run.in_foreign;
    th->run.in_foreign = false;
  }
}

NO_TSAN SignalScope::~SignalScope() {
  --t_signal_depth;
  if (!tsan())
    return;
  if (ThreadState *th = existing_san_thread())
    th->run.in_foreign = saved_in_foreign_;
}

NO_TSAN void ending_process() {
  // In a handler, TSan has its ignores off (SignalScope).
  if (!tsan() || t_signal_depth > 0)
    return;
  __copystack_san_foreign_leave(); // as at exit() (end_foreign_at_exit)
  for (; t_unseen_depth > 0; --t_unseen_depth)
    __tsan_ignore_thread_end();
}

PthreadExitFn pthread_exit_for_task() {
  if (tsan()) {
    ThreadState *th = existing_san_thread();
    static auto libc_exit =
        reinterpret_cast<PthreadExitFn>(dlsym(RTLD_NEXT, "pthread_exit"));
    if (th && th->run.task && libc_exit)
      return libc_exit;
  }
  return &pthread_exit;
}

NO_TSAN void leave_task_slow(const void *key, bool finished) {
  ThreadState &th = san_thread();
  TaskState *s = th.run.task;
  CS_CHECK(s && s == tasks().get(key),
           "the task leaving a thread is the one that ran there");
  // A task ended by pthread_exit leaves from inside a foreign call.
  __copystack_san_foreign_leave();
  if (asan()) {
    // A task that ended leaves no fake stack behind.
    __sanitizer_start_switch_fiber(finished ? nullptr : &s->fake_stack,
                                   th.bottom, th.size);
    __sanitizer_finish_switch_fiber(th.thread_fake, nullptr, nullptr);
    th.thread_fake = nullptr;
  }
  if (tsan()) {
    __tsan_release(s);
    if (__tsan_get_current_fiber() != th.run.return_fiber)
      __tsan_switch_to_fiber(th.run.return_fiber, kSwitchFlags);
  }
  th.run = s->outer;
  if (!finished)
    return;
  if (tsan()) {
    // What ran the task, and whoever joins it through this context, comes
    // after all of it.
    __tsan_acquire(s);
    __tsan_destroy_fiber(s->fiber);
  }
  delete tasks().take(key);
}

void task_stack_moved(uintptr_t lo, uintptr_t hi) {
  if (!asan())
    return;
  ThreadState &th = san_thread();
  uintptr_t bottom = lo - stack_headroom();
  th.run.bottom = reinterpret_cast<const void *>(bottom);
  th.run.size = hi - bottom;
  void *fake;
  __sanitizer_start_switch_fiber(&fake, th.run.bottom, th.run.size);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
}

void release_slow(const void *addr) {
  __tsan_release(const_cast<void *>(addr));
}

void acquire_slow(const void *addr) {
  __tsan_acquire(const_cast<void *>(addr));
}

namespace {
// <sanitizer/tsan_interface.h>'s flags.
constexpr unsigned kTsanWriteReentrant = 1u << 1, kTsanReadLock = 1u << 3,
                   kTsanTryLock = 1u << 4;

unsigned tsan_mutex_flags(unsigned how) {
  return (how & kMutexRead ? kTsanReadLock : 0) |
         (how & kMutexTry ? kTsanTryLock : 0) |
         (how & kMutexReentrant ? kTsanWriteReentrant : 0);
}
} // namespace

// Both halves of TSan's lock annotation at once, after the lock is taken:
// between them TSan ignores the caller's accesses and synchronization,
// which must not stay so across a park (the task's own acquire when it
// runs again would be lost). The lock-order check TSan makes in the first
// half still runs, just before the second. Out of line, so that TSan's
// reports show one frame of the runtime's above the program's call site.
__attribute__((noinline)) void mutex_locked_slow(const void *m, unsigned how,
                                                 void *caller) {
  unsigned flags = tsan_mutex_flags(how);
  if (caller)
    __tsan_func_entry(caller);
  __tsan_mutex_pre_lock(const_cast<void *>(m), flags);
  __tsan_mutex_post_lock(const_cast<void *>(m), flags, 0);
  if (caller)
    __tsan_func_exit();
}

// The first half's check alone: a lock attempt that TSan takes as failed
// (__tsan_mutex_try_lock_failed), so that it holds nothing and no ignore
// window stays open while the caller waits.
__attribute__((noinline)) void mutex_waiting_slow(const void *m, unsigned how,
                                                  void *caller) {
  constexpr unsigned kTsanTryLockFailed = 1u << 5;
  unsigned flags = tsan_mutex_flags(how) & ~kTsanTryLock;
  if (caller)
    __tsan_func_entry(caller);
  __tsan_mutex_pre_lock(const_cast<void *>(m), flags);
  __tsan_mutex_post_lock(const_cast<void *>(m), flags | kTsanTryLockFailed,
                         0);
  if (caller)
    __tsan_func_exit();
}

__attribute__((noinline)) void
mutex_unlocking_slow(const void *m, unsigned how, void *caller) {
  unsigned flags = tsan_mutex_flags(how) & kTsanReadLock;
  if (caller)
    __tsan_func_entry(caller);
  __tsan_mutex_pre_unlock(const_cast<void *>(m), flags);
  __tsan_mutex_post_unlock(const_cast<void *>(m), flags);
  if (caller)
    __tsan_func_exit();
}

void mutex_destroyed_slow(const void *m) {
  __tsan_mutex_destroy(const_cast<void *>(m), 0);
}

void release_task_slow(const void *key) {
  if (TaskState *s = tasks().get(key))
    __tsan_release(s);
}

void acquire_task_slow(const void *key) {
  if (TaskState *s = tasks().get(key))
    __tsan_acquire(s);
}

UnseenScope::UnseenScope() {
  if (tsan()) {
    ++t_unseen_depth;
    __tsan_ignore_thread_begin();
  }
}

UnseenScope::~UnseenScope() {
  if (tsan() && t_unseen_depth > 0) {
    --t_unseen_depth;
    __tsan_ignore_thread_end();
  }
}

void copy_unseen(void *dst, const void *src, size_t n) {
  if (!tsan()) {
    memcpy(dst, src, n);
    return;
  }
#if defined(__x86_64__)
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
#else
  // Bytes through volatile pointers: never turned into a memcpy call.
  auto *d = static_cast<volatile unsigned char *>(dst);
  auto *s = static_cast<const volatile unsigned char *>(src);
  for (size_t i = 0; i < n; ++i)
    d[i] = s[i];
#endif
}

void fill_unseen(void *dst, int byte, size_t n) {
  if (!tsan()) {
    memset(dst, byte, n);
    return;
  }
#if defined(__x86_64__)
  __asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(byte) : "memory");
#else
  auto *d = static_cast<volatile unsigned char *>(dst);
  for (size_t i = 0; i < n; ++i)
    d[i] = static_cast<unsigned char>(byte);
#endif
}

// Not when the runtime is built with TSan itself: its own accesses are
// instrumented then, and need its mutexes' ordering.
void QuietMutex::ignore_sync_begin() {
#ifndef COPYSTACK_TSAN_RUNTIME
  if (AnnotateIgnoreSyncBegin)
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
#endif
}

void QuietMutex::ignore_sync_end() {
#ifndef COPYSTACK_TSAN_RUNTIME
  if (AnnotateIgnoreSyncEnd)
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
#endif
}

bool leak_checks() { return __lsan_register_root_region != nullptr; }

void never_freed(const void *p) {
  if (__lsan_ignore_object)
    __lsan_ignore_object(p);
}

void stack_mapped(uintptr_t lo, uintptr_t hi) {
  if (__lsan_register_root_region)
    __lsan_register_root_region(reinterpret_cast<void *>(lo), hi - lo);
}

void stack_unmapped(uintptr_t lo, uintptr_t hi) {
  if (__lsan_unregister_root_region)
    __lsan_unregister_root_region(reinterpret_cast<void *>(lo), hi - lo);
}

} // namespace san
} // namespace copystack_rt

using namespace copystack_rt::san;

// A foreign call runs on the thread's stack, which every task on the thread
// uses in turn for its foreign calls: ASan learns that the thread's stack
// is current; TSan sees no memory access until the call returns, since it
// would take the thread's stack bytes that one task's foreign call wrote
// and the next one's wrote (a buffer for clock_gettime, snprintf, stat...)
// for a race between the two tasks. Synchronization in the call (its
// mutexes, the runtime's happens-before edges) still counts.
extern "C" NO_TSAN void __copystack_san_foreign_enter() {
  ThreadState &th = san_thread();
  if (!th.run.task || th.run.in_foreign)
    return;
  th.run.in_foreign = true;
  if (asan()) {
    __sanitizer_start_switch_fiber(&th.run.task_fake, th.bottom, th.size);
    __sanitizer_finish_switch_fiber(th.thread_fake, nullptr, nullptr);
    th.thread_fake = nullptr;
  }
  if (tsan())
    __tsan_ignore_thread_begin();
}

extern "C" NO_TSAN void __copystack_san_foreign_leave() {
  ThreadState &th = san_thread();
  if (!th.run.in_foreign)
    return;
  th.run.in_foreign = false;
  if (asan()) {
    __sanitizer_start_switch_fiber(&th.thread_fake, th.run.bottom,
                                   th.run.size);
    __sanitizer_finish_switch_fiber(th.run.task_fake, nullptr, nullptr);
    th.run.task_fake = nullptr;
  }
  if (tsan())
    __tsan_ignore_thread_end();
}

extern "C" NO_TSAN void __copystack_san_landed() {
  __copystack_san_foreign_leave();
}

namespace copystack_rt {
namespace san {
namespace {

// exit() from a task: the foreign call it runs in never returns.
NO_TSAN void end_foreign_at_exit() { __copystack_san_foreign_leave(); }

} // namespace
} // namespace san
} // namespace copystack_rt
