// sanitizers.h: what the runtime tells clang's sanitizers about tasks
// (docs/debugging.md, "Sanitizers"), as Boost.Context, marl and folly do
// for their fibers.
//
// The runtime is never built with a sanitizer for a program's use, but a
// program built with -fsanitize=address, thread or leak links the
// sanitizer's runtime beside it. Every sanitizer entry point the runtime
// calls is a weak reference: null without that sanitizer, so each hook here
// is a test and a return in a program without one.
//
//   AddressSanitizer  Which stack is current: the fiber-switching interface
//                     (__sanitizer_start/finish_switch_fiber) at every
//                     switch between a thread's stack and a task's (task
//                     switches, foreign calls, an exception or longjmp from
//                     foreign code into a task) and when a task's stack
//                     moves. Fake stacks (stack-use-after-return) are
//                     turned off: their frames cannot follow a moved
//                     stack (task_created).
//   ThreadSanitizer   A TSan fiber per task, switched without
//                     synchronization: tasks order each other only through
//                     the runtime's primitives, which say so with
//                     __tsan_acquire/__tsan_release (sync.cc: Go's rules),
//                     and through spawning and joining (here). Foreign
//                     calls, which run on the thread's stack that all its
//                     tasks share, make no memory accesses TSan sees.
//   LeakSanitizer     Task stacks are root regions: what a parked task's
//                     frames point to is not a leak.
//   ASan and TSan     Their checks run in place on the task stack (the pass
//                     calls them there, passes/Sanitizers.h), and their
//                     reports need about 10 KiB: every stack gets
//                     stack_headroom() bytes below its lowest byte, beneath
//                     the guard band (stack_alloc.cc).
#ifndef COPYSTACK_SANITIZERS_H
#define COPYSTACK_SANITIZERS_H

#include <cstddef>
#include <cstdint>
#include <mutex>

extern "C" {
__attribute__((weak)) void
__sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom,
                               size_t size);
__attribute__((weak)) void __tsan_switch_to_fiber(void *fiber,
                                                  unsigned flags);
}

// The inline hooks below: always inlined, and never instrumented by TSan
// (the runtime built with it for its unit tests), as the functions they
// call (sanitizers.cc, NO_TSAN): a hook around a switch would enter on one
// fiber's shadow stack and leave from another's.
#define SAN_HOOK                                                              \
  inline __attribute__((always_inline, no_sanitize("thread"),                  \
                        disable_sanitizer_instrumentation))

namespace copystack_rt {
namespace san {

// Which sanitizer runtimes the program linked: whether their weak symbols
// (sanitizers.cc declares the rest) resolved. Inline, with the hooks below:
// every task switch and primitive calls them, and without a sanitizer each
// is a test of two addresses.
inline bool asan() { return __sanitizer_start_switch_fiber != nullptr; }
inline bool tsan() { return __tsan_switch_to_fiber != nullptr; }
// LeakSanitizer is scanning (alone, or as part of AddressSanitizer).
bool leak_checks();

// Whether task stacks are mapped one by one (stack_alloc.cc), each with
// stack_headroom() below it and a root region for LeakSanitizer while in
// use: with ASan, TSan or LeakSanitizer.
bool separate_stacks();

// Bytes below every task stack for the sanitizers' checks and reports: 0
// without ASan and TSan.
size_t stack_headroom();

// A task is about to become runnable for the first time: the calling
// context (its creator) happens before everything the task does. key is
// the task, id its number (for TSan's reports).
void task_created(const void *key, uint64_t id);
// Under TSan, COPYSTACK_CLOSURE_BYTES (16-aligned) that belong to this task
// alone, for its C++ callable: the task structure is recycled behind TSan's
// back, and the callable's bytes would seem shared with the structure's
// previous task. Null without TSan.
void *task_closure(const void *key);
// On the thread's stack, right before it switches to the task, whose stack
// is [lo, hi) (plus the headroom below lo).
void enter_task_slow(const void *key, uintptr_t lo, uintptr_t hi);
SAN_HOOK void enter_task(const void *key, uintptr_t lo, uintptr_t hi) {
  if (asan() || tsan())
    enter_task_slow(key, lo, hi);
}
// On the thread's stack, right after the task switched back: it parked
// (finished false) or returned (true; the calling context then happens
// after everything the task did, and the task's sanitizer state goes).
void leave_task_slow(const void *key, bool finished);
SAN_HOOK void leave_task(const void *key, bool finished) {
  if (asan() || tsan())
    leave_task_slow(key, finished);
}
// Threads the sanitizer in the program runs for itself, which never touch a
// task primitive: TSan's background thread (started with the first thread
// the program or the runtime creates). 0 without one.
int internal_threads();
// The process is about to end with _exit (a fatal error), maybe from a
// foreign call: TSan's ignores, on in one, end first (TSan reports a thread
// that ends with them on, and changes the exit status).
void ending_process();
// The pthread_exit a task that ends its thread calls. Under TSan, the C
// library's own, past TSan's: TSan's insists on the thread's own context,
// but the task's frames must unwind in the task's, since their TSan
// function-exit hooks pop the current context's shadow stack (popping the
// thread's, they went below its start, and a later push wrote under it).
// The unwinding ends the task where it leaves the task's first frame
// (leave_task), which makes the thread's context current again.
using PthreadExitFn = void (*)(void *);
PthreadExitFn pthread_exit_for_task();
// The running task's stack is now [lo, hi) (growth.cc, after a copy).
void task_stack_moved(uintptr_t lo, uintptr_t hi);

// The definition of the libc function `name` that this object's
// interposer of it (defined here, with the same name) should call on.
// A sanitizer interposes it too, as a weak definition that keeps its own
// under `interceptor` (__interceptor_name): linked into the executable
// with the static runtime, ours overrides the sanitizer's, which is then
// next; with the shared runtime the executable's (the sanitizer's) comes
// first and calls ours as the "real" one, so ours goes on to the C
// library's. Null when neither is found.
void *next_definition(const char *name, void *interceptor);

// Around every signal handler the runtime runs (the trampoline around the
// program's, its own): TSan runs each handler with its ignores off and
// puts them back after, so a foreign call the signal interrupted is not
// one inside the handler, whose own foreign calls begin and end theirs;
// and a fatal error in a handler has no ignores to end (ending_process).
// Allocates nothing.
class SignalScope {
public:
  SignalScope();
  ~SignalScope();
  SignalScope(const SignalScope &) = delete;
  SignalScope &operator=(const SignalScope &) = delete;

private:
  bool saved_in_foreign_ = false;
};

// Whether a SignalScope is open on this thread: the code runs in a signal
// handler (or one left by siglongjmp), where only async-signal-safe calls
// are allowed.
bool in_signal_handler();

// Go's happens-before edges (ThreadSanitizer), for sync.cc: the calling
// context releases to, or acquires from, a synchronization object.
void release_slow(const void *addr);
void acquire_slow(const void *addr);
SAN_HOOK void release(const void *addr) {
  if (tsan())
    release_slow(addr);
}
SAN_HOOK void acquire(const void *addr) {
  if (tsan())
    acquire_slow(addr);
}
// The pthread mutexes and read-write locks the runtime implements
// (sched/pthread_sync.cc), told to ThreadSanitizer as its interceptors
// tell it glibc's: m is now held (after the lock is taken: a read lock, a
// try-lock, a recursive mutex, as `how` says), is about to be released
// (before the lock is given up), or is gone. TSan then orders each lock
// after the previous unlock, names the locks held in its race reports and
// checks their order (lock-order inversions) and their use (an unlock of a
// lock not held). caller: the program's call site (a return address into
// it), which TSan's reports show below the runtime's frame; or null.
constexpr unsigned kMutexRead = 1, kMutexTry = 2, kMutexReentrant = 4;
void mutex_locked_slow(const void *m, unsigned how, void *caller);
void mutex_waiting_slow(const void *m, unsigned how, void *caller);
void mutex_unlocking_slow(const void *m, unsigned how, void *caller);
void mutex_destroyed_slow(const void *m);
SAN_HOOK void mutex_locked(const void *m, unsigned how, void *caller) {
  if (tsan())
    mutex_locked_slow(m, how, caller);
}
// The caller is about to wait for m (park, or block its thread): TSan's
// lock-order check, which reports an inversion before a deadlock it
// would make, as TSan's interceptors do before they block.
SAN_HOOK void mutex_waiting(const void *m, unsigned how, void *caller) {
  if (tsan())
    mutex_waiting_slow(m, how, caller);
}
SAN_HOOK void mutex_unlocking(const void *m, unsigned how, void *caller) {
  if (tsan())
    mutex_unlocking_slow(m, how, caller);
}
SAN_HOOK void mutex_destroyed(const void *m) {
  if (tsan())
    mutex_destroyed_slow(m);
}

// The same, on a task: whoever wakes the task releases to it; the task
// acquires when it runs again (enter_task). A waker that takes a parked
// task's waiter acquires what the task did before it parked.
void release_task_slow(const void *key);
void acquire_task_slow(const void *key);
SAN_HOOK void release_task(const void *key) {
  if (tsan())
    release_task_slow(key);
}
SAN_HOOK void acquire_task(const void *key) {
  if (tsan())
    acquire_task_slow(key);
}

// ThreadSanitizer sees no memory access of this thread's while one is in
// scope: for the runtime's own work on the thread's stack in a task's name
// (growth.cc), as for a foreign call (__copystack_san_foreign_enter).
struct UnseenScope {
  UnseenScope();
  ~UnseenScope();
  UnseenScope(const UnseenScope &) = delete;
  UnseenScope &operator=(const UnseenScope &) = delete;
};

// memcpy and memset, unseen by the sanitizers (they intercept memcpy and
// memset, even the runtime's): a stack the collector moves is no access of
// the collector's to ThreadSanitizer, which would otherwise see it race
// with the task that owns the frames.
void copy_unseen(void *dst, const void *src, size_t n);
void fill_unseen(void *dst, int byte, size_t n);

// A std::mutex that orders nothing for ThreadSanitizer. The runtime's own
// locks, taken inside tasks' calls (a growth, a task's creation, a timer),
// would otherwise order the unrelated tasks that take them one after the
// other and hide their races; what the runtime hands over under them it
// hands over under its spin locks too, or says so with release/acquire.
class QuietMutex {
public:
  void lock() {
    ignore_sync_begin();
    m_.lock();
    ignore_sync_end();
  }
  void unlock() {
    ignore_sync_begin();
    m_.unlock();
    ignore_sync_end();
  }
  // For a condition variable's wait, which synchronizes as usual.
  std::mutex &native() { return m_; }

private:
  std::mutex m_;
  static void ignore_sync_begin();
  static void ignore_sync_end();
};

// LeakSanitizer: the runtime keeps p, a heap block, on purpose after the
// last pointer to it may be gone (a retired worker's structure).
void never_freed(const void *p);

// Stack memory, for LeakSanitizer: [lo, hi) holds task frames from now on,
// or no longer.
void stack_mapped(uintptr_t lo, uintptr_t hi);
void stack_unmapped(uintptr_t lo, uintptr_t hi);

} // namespace san
} // namespace copystack_rt

// Called by switch.S, on the thread's stack after a foreign call left the
// task's stack and before it goes back, and from a landing pad on the task
// stack (an exception or a longjmp that left a foreign call early). Only
// with AddressSanitizer or ThreadSanitizer.
#define COPYSTACK_SAN_HIDDEN __attribute__((visibility("hidden")))
extern "C" COPYSTACK_SAN_HIDDEN void __copystack_san_foreign_enter();
extern "C" COPYSTACK_SAN_HIDDEN void __copystack_san_foreign_leave();
extern "C" COPYSTACK_SAN_HIDDEN void __copystack_san_landed();

#endif
