// pthread_sync.cc: pthread (and C11) mutexes, condition variables,
// semaphores, read-write locks, barriers, once flags and joins that park
// tasks.
//
// A task waiting for a std::mutex or a std::condition_variable parks, as a
// goroutine waiting on a sync.Mutex does; a plain thread (or a task in
// code that cannot park: a thread's own task, foreign code) blocks as it
// always did. For that, every lock, unlock, wait and signal in the
// process goes through the runtime: the drivers export the interposers
// below from executables (a -static link wraps them), and instrumented
// code's calls that may wait go to io_calls.c's wrappers, which park
// (COPYSTACK_IO_MUTEX_LOCK, COPYSTACK_IO_COND_WAIT, io.cc).
//
// Mutexes keep glibc's layout and glibc's futex protocol on its lock word
// (0 free, 1 held, 2 held with waiters), so that one held by a task and
// waited for by a thread, or the other way round, works: a task waits for
// the word in the poller's futex table (netpoll.cc), a thread in the
// kernel, and an unlock that finds waiters wakes a task, or else a thread.
// The owner is the task for a task (its id, with bit 30 set, where glibc
// puts the thread id), so that a recursive or error-checking mutex is a
// task's, whichever thread it runs on, and two tasks on one thread do not
// share it. The kinds taken over: the default (timed), recursive,
// error-checking and adaptive ones, with glibc's elision flags (never
// elided here). Robust, priority-inheriting, priority-protecting and
// process-shared mutexes stay glibc's (a task waiting for one blocks its
// worker).
//
// Condition variables are the runtime's own on the storage of a
// pthread_cond_t: a sequence word that every signal and broadcast
// advances, and a count of waiters; a waiter waits for the sequence to
// move from the value it saw before it released the mutex (POSIX allows
// the spurious wake-ups this gives). The clock and process-shared bits of
// pthread_cond_init are where glibc keeps them; a process-shared one stays
// glibc's.
//
// POSIX semaphores keep glibc's layout and protocol (a 64-bit word: the
// value in the low half, which waiters wait on, the count of waiters in
// the high half): a task's sem_wait parks on the value, and every
// sem_post in the process wakes a task or else a thread. Process-shared
// ones stay glibc's.
//
// Read-write locks, barriers and once flags are the runtime's own on the
// storage of glibc's objects (their sections below say how); process-shared
// ones stay glibc's. C11's mtx_t, cnd_t and once_flag are glibc's pthread
// objects: their calls are interposed too, and go to the pthread ones.
// pthread_join polls the thread (see join_call).
//
// Under ThreadSanitizer, whose interceptors of these names the runtime's
// override (platform/sanitizers.h, next_definition), the runtime's
// primitives tell TSan what glibc's would have told it through them: the
// locks taken and released (san::mutex_locked, san::mutex_unlocking), a
// semaphore's post before the wait it ends, a barrier's arrivals before
// its departures, a once initializer before the callers that find it done
// (san::release, san::acquire).
#include "platform/split_stack_notes.h"
#include "sched/pthread_sync.h"
#include "platform/fatal.h"
#include "platform/interpose.h"
#include "platform/sanitizers.h"
#include "platform/stats.h"
#include "platform/thread.h"
#include "sched/io_calls.h"
#include "sched/task.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

// A static executable's: behind -Wl,--wrap= (platform/interpose.h).
CS_DECLARE_REAL(pthread_mutex_lock, ::pthread_mutex_lock)
CS_DECLARE_REAL(pthread_mutex_trylock, ::pthread_mutex_trylock)
CS_DECLARE_REAL(pthread_mutex_timedlock, ::pthread_mutex_timedlock)
CS_DECLARE_REAL(pthread_mutex_clocklock, ::pthread_mutex_clocklock)
CS_DECLARE_REAL(pthread_mutex_unlock, ::pthread_mutex_unlock)
CS_DECLARE_REAL(pthread_cond_init, ::pthread_cond_init)
CS_DECLARE_REAL(pthread_cond_destroy, ::pthread_cond_destroy)
CS_DECLARE_REAL(pthread_cond_signal, ::pthread_cond_signal)
CS_DECLARE_REAL(pthread_cond_broadcast, ::pthread_cond_broadcast)
CS_DECLARE_REAL(pthread_cond_wait, ::pthread_cond_wait)
CS_DECLARE_REAL(pthread_cond_timedwait, ::pthread_cond_timedwait)
CS_DECLARE_REAL(pthread_cond_clockwait, ::pthread_cond_clockwait)
CS_DECLARE_REAL(sem_post, ::sem_post)
CS_DECLARE_REAL(pthread_once, ::pthread_once)
CS_DECLARE_REAL(pthread_rwlock_init, ::pthread_rwlock_init)
CS_DECLARE_REAL(pthread_rwlock_destroy, ::pthread_rwlock_destroy)
CS_DECLARE_REAL(pthread_rwlock_rdlock, ::pthread_rwlock_rdlock)
CS_DECLARE_REAL(pthread_rwlock_tryrdlock, ::pthread_rwlock_tryrdlock)
CS_DECLARE_REAL(pthread_rwlock_timedrdlock, ::pthread_rwlock_timedrdlock)
CS_DECLARE_REAL(pthread_rwlock_clockrdlock, ::pthread_rwlock_clockrdlock)
CS_DECLARE_REAL(pthread_rwlock_wrlock, ::pthread_rwlock_wrlock)
CS_DECLARE_REAL(pthread_rwlock_trywrlock, ::pthread_rwlock_trywrlock)
CS_DECLARE_REAL(pthread_rwlock_timedwrlock, ::pthread_rwlock_timedwrlock)
CS_DECLARE_REAL(pthread_rwlock_clockwrlock, ::pthread_rwlock_clockwrlock)
CS_DECLARE_REAL(pthread_rwlock_unlock, ::pthread_rwlock_unlock)
CS_DECLARE_REAL(pthread_barrier_init, ::pthread_barrier_init)
CS_DECLARE_REAL(pthread_barrier_destroy, ::pthread_barrier_destroy)
CS_DECLARE_REAL(pthread_barrier_wait, ::pthread_barrier_wait)

namespace copystack_rt {

namespace {

// ---- what is the runtime's
// -----------------------------------------------------

const char *const kInterposed[] = {
    "pthread_mutex_lock",     "pthread_mutex_trylock", "pthread_mutex_timedlock",
    "pthread_mutex_clocklock", "pthread_mutex_unlock", "pthread_cond_init",
    "pthread_cond_destroy",   "pthread_cond_signal",   "pthread_cond_broadcast",
    "pthread_cond_wait",      "pthread_cond_timedwait", "pthread_cond_clockwait",
    "sem_post",               "pthread_rwlock_init",   "pthread_rwlock_destroy",
    "pthread_rwlock_rdlock",  "pthread_rwlock_tryrdlock",
    "pthread_rwlock_timedrdlock", "pthread_rwlock_clockrdlock",
    "pthread_rwlock_wrlock",  "pthread_rwlock_trywrlock",
    "pthread_rwlock_timedwrlock", "pthread_rwlock_clockwrlock",
    "pthread_rwlock_unlock",  "pthread_barrier_init", "pthread_barrier_destroy",
    "pthread_barrier_wait",   "pthread_once",          "mtx_lock",
    "mtx_timedlock",          "mtx_trylock",           "mtx_unlock",
    "cnd_signal",             "cnd_broadcast",         "cnd_wait",
    "cnd_timedwait",          "call_once"};

bool binds_here(const char *const *names, int n);

// Whether the runtime takes the mutexes and condition variables over: its
// interposers are the program's bindings of every name (not when the
// runtime is a shared library that comes after the C library, or after a
// sanitizer's interceptors, in the global scope: a host built without it
// that loads an instrumented library), so that every caller in the process
// follows the same protocol. Otherwise every call is the C library's (or
// the sanitizer's). Under ThreadSanitizer (its interceptors overridden by
// the executable's interposers), the primitives also tell TSan what they
// do. Decided at the first call, before or after the constructors run, and
// never changed: the same every time it is computed, so two threads that
// decide at once agree. One load on the interposers' paths (a function-
// local static's guard made it two loads and two branches, which a mutex
// taken around most of SQLite's work pays twice per lock).
enum : signed char { kSyncUndecided = -1, kSyncOff, kSyncOn, kSyncTold };
std::atomic<signed char> g_sync{kSyncUndecided};

__attribute__((noinline)) signed char decide_sync() {
  signed char mode = kSyncOff;
#ifndef COPYSTACK_NO_INTERPOSERS
  if (binds_here(kInterposed, sizeof kInterposed / sizeof *kInterposed))
    mode = san::tsan() ? kSyncTold : kSyncOn;
#endif
  g_sync.store(mode, std::memory_order_relaxed);
  return mode;
}

inline signed char sync_mode() {
  signed char s = g_sync.load(std::memory_order_relaxed);
  if (__builtin_expect(s >= 0, 1))
    return s;
  return decide_sync();
}

inline bool sync_enabled() { return sync_mode() != kSyncOff; }

// The C library's (or a sanitizer's) definition of name.
#ifdef COPYSTACK_STATIC_LINK
#define CS_NEXT_SYNC(name, ...) reinterpret_cast<__VA_ARGS__>(CS_REAL_OF(name))
#else
#define CS_NEXT_SYNC(name, ...)                                                \
  reinterpret_cast<__VA_ARGS__>(next_definition(#name))

// The sanitizer's interceptor, or the next definition, or (where the C
// library comes first in the global scope) the C library's.
void *next_definition(const char *name) {
  char interceptor[64];
  snprintf(interceptor, sizeof interceptor, "__interceptor_%s", name);
  void *fn = san::next_definition(name, dlsym(RTLD_DEFAULT, interceptor));
  if (!fn)
    if (void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD)) {
      fn = dlsym(libc, name);
      dlclose(libc);
    }
  return fn;
}
#endif
// The definitions behind the interposers, found once, at load time (a
// constructor below), so that none is looked up later on a task's stack,
// where the interposers of the MUTEX group run in place (abi.h).
struct Next {
  int (*mutex_lock)(pthread_mutex_t *);
  int (*mutex_trylock)(pthread_mutex_t *);
  int (*mutex_timedlock)(pthread_mutex_t *, const timespec *);
  int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const timespec *);
  int (*mutex_unlock)(pthread_mutex_t *);
  int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
  int (*cond_destroy)(pthread_cond_t *);
  int (*cond_signal)(pthread_cond_t *);
  int (*cond_broadcast)(pthread_cond_t *);
  int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
  int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const timespec *);
  int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
                        const timespec *);
  int (*sem_post)(sem_t *);
  int (*once)(pthread_once_t *, void (*)(void));
  int (*rwlock_init)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
  int (*rwlock_destroy)(pthread_rwlock_t *);
  int (*rwlock_rdlock)(pthread_rwlock_t *);
  int (*rwlock_tryrdlock)(pthread_rwlock_t *);
  int (*rwlock_timedrdlock)(pthread_rwlock_t *, const timespec *);
  int (*rwlock_clockrdlock)(pthread_rwlock_t *, clockid_t, const timespec *);
  int (*rwlock_wrlock)(pthread_rwlock_t *);
  int (*rwlock_trywrlock)(pthread_rwlock_t *);
  int (*rwlock_timedwrlock)(pthread_rwlock_t *, const timespec *);
  int (*rwlock_clockwrlock)(pthread_rwlock_t *, clockid_t, const timespec *);
  int (*rwlock_unlock)(pthread_rwlock_t *);
  int (*barrier_init)(pthread_barrier_t *, const pthread_barrierattr_t *,
                      unsigned);
  int (*barrier_destroy)(pthread_barrier_t *);
  int (*barrier_wait)(pthread_barrier_t *);
  int (*sem_wait)(sem_t *);
  int (*sem_clockwait)(sem_t *, clockid_t, const timespec *);
};

#define CS_RESOLVE(field, name)                                                \
  n.field = CS_NEXT_SYNC(name, decltype(n.field));                             \
  if (!n.field)                                                                \
    fatal(#name ": the C library's definition was not found");

const Next &next() {
  static const Next fns = [] {
    Next n;
    CS_RESOLVE(mutex_lock, pthread_mutex_lock)
    CS_RESOLVE(mutex_trylock, pthread_mutex_trylock)
    CS_RESOLVE(mutex_timedlock, pthread_mutex_timedlock)
    CS_RESOLVE(mutex_clocklock, pthread_mutex_clocklock)
    CS_RESOLVE(mutex_unlock, pthread_mutex_unlock)
    CS_RESOLVE(cond_init, pthread_cond_init)
    CS_RESOLVE(cond_destroy, pthread_cond_destroy)
    CS_RESOLVE(cond_signal, pthread_cond_signal)
    CS_RESOLVE(cond_broadcast, pthread_cond_broadcast)
    CS_RESOLVE(cond_wait, pthread_cond_wait)
    CS_RESOLVE(cond_timedwait, pthread_cond_timedwait)
    CS_RESOLVE(cond_clockwait, pthread_cond_clockwait)
    CS_RESOLVE(sem_post, sem_post)
    CS_RESOLVE(once, pthread_once)
    CS_RESOLVE(rwlock_init, pthread_rwlock_init)
    CS_RESOLVE(rwlock_destroy, pthread_rwlock_destroy)
    CS_RESOLVE(rwlock_rdlock, pthread_rwlock_rdlock)
    CS_RESOLVE(rwlock_tryrdlock, pthread_rwlock_tryrdlock)
    CS_RESOLVE(rwlock_timedrdlock, pthread_rwlock_timedrdlock)
    CS_RESOLVE(rwlock_clockrdlock, pthread_rwlock_clockrdlock)
    CS_RESOLVE(rwlock_wrlock, pthread_rwlock_wrlock)
    CS_RESOLVE(rwlock_trywrlock, pthread_rwlock_trywrlock)
    CS_RESOLVE(rwlock_timedwrlock, pthread_rwlock_timedwrlock)
    CS_RESOLVE(rwlock_clockwrlock, pthread_rwlock_clockwrlock)
    CS_RESOLVE(rwlock_unlock, pthread_rwlock_unlock)
    CS_RESOLVE(barrier_init, pthread_barrier_init)
    CS_RESOLVE(barrier_destroy, pthread_barrier_destroy)
    CS_RESOLVE(barrier_wait, pthread_barrier_wait)
    // Not interposed: the program's binding is the C library's (or a
    // sanitizer's).
    n.sem_wait = ::sem_wait;
    n.sem_clockwait = ::sem_clockwait;
    return n;
  }();
  return fns;
}

__attribute__((constructor)) void resolve_next() { next(); }

bool binds_here(const char *const *names, int n) {
#ifdef COPYSTACK_STATIC_LINK
  (void)names;
  (void)n;
  return true; // every reference is wrapped (platform/interpose.h)
#else
  Dl_info self, bound;
  if (!dladdr(reinterpret_cast<void *>(&resolve_next), &self))
    return false;
  for (int i = 0; i < n; ++i) {
    void *fn = dlsym(RTLD_DEFAULT, names[i]);
    if (!fn || !dladdr(fn, &bound) || bound.dli_fbase != self.dli_fbase)
      return false;
  }
  return true;
#endif
}

// glibc's mutex kinds (pthread_mutex_t::__data.__kind).
constexpr int kKindMask = 3;
constexpr int kRecursive = 1, kErrorCheck = 2; // 0: the default (timed) kind
constexpr int kElisionFlags = 256 | 512;
// A task's owner id: bit 30 set, never a thread id (at most 2^22).
constexpr uint32_t kTaskOwner = 0x40000000u;

std::atomic<int> *lock_word(pthread_mutex_t *m) {
  return reinterpret_cast<std::atomic<int> *>(&m->__data.__lock);
}

int kind_of(pthread_mutex_t *m) {
  return __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
}

bool kind_ours(pthread_mutex_t *m) {
  return (kind_of(m) & ~(kKindMask | kElisionFlags)) == 0;
}

bool mutex_ours(pthread_mutex_t *m) { return sync_enabled() && kind_ours(m); }

// Under ThreadSanitizer (kSyncTold): m is held now, by a lock (or a
// try-lock) that succeeded, made at caller (a return address into the
// program, or null). Returns 0, the lock's result.
int tell_locked(pthread_mutex_t *m, bool trylock, void *caller) {
  san::mutex_locked(m,
                    (trylock ? san::kMutexTry : 0) |
                        ((kind_of(m) & kKindMask) == kRecursive
                             ? san::kMutexReentrant
                             : 0),
                    caller);
  return 0;
}

// The owner word of the calling task or thread, or 0 while a thread's id
// is not known yet (self_owner asks the kernel).
inline int known_owner() {
  Thread &th = __copystack_thread;
  if (Task *t = th.task)
    return static_cast<int>(kTaskOwner | (t->id & (kTaskOwner - 1)));
  return th.tid;
}

int self_owner() {
  if (int me = known_owner())
    return me;
  Thread &th = __copystack_thread;
  th.tid = static_cast<int32_t>(gettid());
  return th.tid;
}

// ---- deadlines
// ------------------------------------------------------------------

// An absolute time on clock as a futex timeout (the clock's own) and as a
// deadline on now_ns()'s clock, for a task's timer. False: EINVAL.
struct Deadline {
  bool none = true;
  bool realtime = false;
  timespec abs{};
  uint64_t mono = 0; // 0: none
};

bool make_deadline(const timespec *abs, clockid_t clock, Deadline &d) {
  d = Deadline{};
  if (!abs)
    return true;
  if ((clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) ||
      abs->tv_nsec < 0 || abs->tv_nsec >= 1000000000)
    return false;
  d.none = false;
  d.realtime = clock == CLOCK_REALTIME;
  d.abs = *abs;
  uint64_t now = now_ns();
  if (abs->tv_sec < 0) {
    d.mono = now;
    return true;
  }
  timespec cur;
  clock_gettime(clock, &cur);
  uint64_t at = uint64_t(cur.tv_sec) * 1000000000u + uint64_t(cur.tv_nsec);
  uint64_t ns = uint64_t(abs->tv_sec) * 1000000000u + uint64_t(abs->tv_nsec);
  d.mono = ns > at ? now + (ns - at) : now;
  if (!d.mono)
    d.mono = 1;
  return true;
}

// A thread's futex wait on word for val until d. Returns ETIMEDOUT at
// the deadline, else 0 (woken, the word changed, or a signal).
int thread_wait(void *word, uint32_t val, const Deadline &d) {
  int saved = errno;
  int64_t r;
  if (d.none)
    r = raw_futex(word, FUTEX_WAIT_PRIVATE, val, nullptr, nullptr, 0);
  else
    r = raw_futex(word,
                  FUTEX_WAIT_BITSET_PRIVATE |
                      (d.realtime ? FUTEX_CLOCK_REALTIME : 0),
                  val, const_cast<timespec *>(&d.abs), nullptr,
                  FUTEX_BITSET_MATCH_ANY);
  int err = r < 0 ? errno : 0;
  errno = saved;
  return err == ETIMEDOUT ? ETIMEDOUT : 0;
}

// Wakes n of the tasks and then of the threads waiting on word.
void wake_word(void *word, int n) {
  int tasks = futex_wake(word, n, ~0u);
  if (tasks < n) {
    int saved = errno;
    raw_futex(word, FUTEX_WAKE_PRIVATE, n - tasks, nullptr, nullptr, 0);
    errno = saved;
  }
}

// ---- mutexes
// --------------------------------------------------------------------

// What a recursive or error-checking mutex says when me holds it already:
// the result, or -1 when the lock goes on as for anyone.
int held_by_me(pthread_mutex_t *m, int me, bool trylock) {
  int kind = kind_of(m) & kKindMask;
  if ((kind != kRecursive && kind != kErrorCheck) ||
      __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) != me)
    return -1;
  if (kind == kErrorCheck)
    return trylock ? EBUSY : EDEADLK;
  if (m->__data.__count + 1 == 0)
    return EAGAIN;
  ++m->__data.__count;
  return 0;
}

// The lock word was taken: the owner's fields, as glibc keeps them.
inline void taken(pthread_mutex_t *m, int me, int kind) {
  __atomic_store_n(&m->__data.__owner, me, __ATOMIC_RELAXED);
  if (kind == kRecursive)
    m->__data.__count = 1;
  ++m->__data.__nusers;
}

void taken(pthread_mutex_t *m, int me) {
  taken(m, me, kind_of(m) & kKindMask);
}

bool try_take(pthread_mutex_t *m) {
  int free = 0;
  return lock_word(m)->compare_exchange_strong(free, 1,
                                               std::memory_order_acquire);
}

// The contended path's attempt: leaves the word saying there are waiters.
bool grab(pthread_mutex_t *m) {
  return lock_word(m)->exchange(2, std::memory_order_acquire) == 0;
}

__attribute__((noinline)) int learn_tid_then_trylock(pthread_mutex_t *m,
                                                   bool tell,
                                                   void *caller) noexcept;

// Inline in the interposer, as mutex_unlock: the common case, a normal or
// recursive mutex on a task or a thread whose id is known, reads the kind
// once and makes no call but, rarely, a last one (a thread's first lock,
// the sanitizer, waiters to wake), so that the path taken keeps no
// registers and sets up no frame. tell: under ThreadSanitizer, for a call
// made at caller.
__attribute__((always_inline)) inline int
mutex_trylock(pthread_mutex_t *m, bool tell, void *caller) {
  const int kind = kind_of(m) & kKindMask;
  const int me = known_owner();
  if (__builtin_expect(!me, 0))
    return learn_tid_then_trylock(m, tell, caller);
  if (kind != 0) {
    int r = held_by_me(m, me, true);
    if (r > 0 || (r == 0 && !tell))
      return r;
    if (r == 0)
      return tell_locked(m, true, caller);
  }
  if (!try_take(m))
    return EBUSY;
  taken(m, me, kind);
  if (__builtin_expect(tell, 0))
    return tell_locked(m, true, caller);
  return 0;
}

int learn_tid_then_trylock(pthread_mutex_t *m, bool tell,
                           void *caller) noexcept {
  self_owner();
  return mutex_trylock(m, tell, caller);
}

int mutex_lock_thread(pthread_mutex_t *m, const timespec *abs,
                      clockid_t clock, void *caller);

// A thread's lock, until abs on clock, made at caller.
int mutex_lock_blocking(pthread_mutex_t *m, const timespec *abs,
                        clockid_t clock, void *caller) {
  int r = mutex_lock_thread(m, abs, clock, caller);
  if (r == 0 && sync_mode() == kSyncTold)
    tell_locked(m, false, caller);
  return r;
}

int mutex_lock_thread(pthread_mutex_t *m, const timespec *abs,
                      clockid_t clock, void *caller) {
  int me = self_owner();
  int r = held_by_me(m, me, false);
  if (r >= 0)
    return r;
  if (try_take(m)) {
    taken(m, me);
    return 0;
  }
  Deadline d;
  if (!make_deadline(abs, clock, d))
    return EINVAL;
  if (sync_mode() == kSyncTold)
    san::mutex_waiting(m, 0, caller);
  while (!grab(m))
    if (thread_wait(lock_word(m), 2, d) == ETIMEDOUT) {
      if (grab(m))
        break;
      return ETIMEDOUT;
    }
  taken(m, me);
  return 0;
}

// A task that has waited this long for a mutex gets it from the next
// unlock, which keeps it held for the task (Go's sync.Mutex starvation
// mode): without it, a task that unlocks and locks again in a loop on the
// waiter's worker takes the mutex back every time before the woken waiter
// runs.
constexpr uint64_t kStarvedNs = 1000 * 1000;

__attribute__((noinline)) int unlock_contended(pthread_mutex_t *m) noexcept;
__attribute__((noinline)) int learn_tid_then_unlock(pthread_mutex_t *m,
                                                  bool tell,
                                                  void *caller) noexcept;

// tell: under ThreadSanitizer, for a call made at caller.
__attribute__((always_inline)) inline int
mutex_unlock(pthread_mutex_t *m, bool tell, void *caller) {
  int kind = kind_of(m) & kKindMask;
  if (kind == kRecursive || kind == kErrorCheck) {
    const int me = known_owner();
    if (__builtin_expect(!me, 0))
      return learn_tid_then_unlock(m, tell, caller);
    if (__atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) != me ||
        lock_word(m)->load(std::memory_order_relaxed) == 0)
      return EPERM;
  }
  if (__builtin_expect(tell, 0))
    san::mutex_unlocking(m, 0, caller);
  if (kind == kRecursive && --m->__data.__count)
    return 0;
  __atomic_store_n(&m->__data.__owner, 0, __ATOMIC_RELAXED);
  --m->__data.__nusers;
  int one = 1;
  if (!lock_word(m)->compare_exchange_strong(one, 0,
                                             std::memory_order_release,
                                             std::memory_order_relaxed))
    return unlock_contended(m); // the word says there are waiters
  return 0;
}

int learn_tid_then_unlock(pthread_mutex_t *m, bool tell,
                          void *caller) noexcept {
  self_owner();
  return mutex_unlock(m, tell, caller);
}

// Returns 0, the unlock's result.
int unlock_contended(pthread_mutex_t *m) noexcept {
  if (lock_word(m)->load(std::memory_order_relaxed) == 2 &&
      futex_hand_off(lock_word(m), kStarvedNs))
    return 0; // held still, now the waiter's (mutex_lock_call)
  if (lock_word(m)->exchange(0, std::memory_order_release) > 1)
    wake_word(lock_word(m), 1);
  return 0;
}

// ---- condition variables
// ----------------------------------------------------------

// The runtime's words in a pthread_cond_t: the sequence (bytes 0-3) and
// the waiters (4-7); glibc's __wrefs (bytes 36-39) keeps the attributes:
// bit 0 process-shared, bit 1 the monotonic clock.
static_assert(sizeof(pthread_cond_t) >= 40, "glibc's pthread_cond_t");

std::atomic<uint32_t> *cond_seq(pthread_cond_t *c) {
  return reinterpret_cast<std::atomic<uint32_t> *>(c);
}
std::atomic<uint32_t> *cond_waiters(pthread_cond_t *c) {
  return reinterpret_cast<std::atomic<uint32_t> *>(c) + 1;
}
uint32_t cond_attrs(pthread_cond_t *c) {
  return __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED);
}

bool cond_ours(pthread_cond_t *c) {
  return sync_enabled() && !(cond_attrs(c) & 1);
}

clockid_t cond_clock(pthread_cond_t *c) {
  return cond_attrs(c) & 2 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

void cond_wake(pthread_cond_t *c, int n) {
  if (cond_waiters(c)->load() == 0)
    return;
  cond_seq(c)->fetch_add(1);
  wake_word(cond_seq(c), n);
}

int cond_wait_blocking(pthread_cond_t *c, pthread_mutex_t *m,
                       const timespec *abs, clockid_t clock, void *caller) {
  Deadline d;
  if (!make_deadline(abs, clock, d))
    return EINVAL;
  uint32_t seq = cond_seq(c)->load();
  cond_waiters(c)->fetch_add(1);
  int r = mutex_unlock(m, sync_mode() == kSyncTold, caller);
  if (r) {
    cond_waiters(c)->fetch_sub(1);
    return r;
  }
  int timed_out = thread_wait(cond_seq(c), seq, d);
  cond_waiters(c)->fetch_sub(1);
  mutex_lock_blocking(m, nullptr, CLOCK_REALTIME, caller);
  return timed_out;
}

// ---- semaphores
// -----------------------------------------------------------------

// glibc's sem_t: the value and the waiters in one word, then glibc's
// futex flag word: 0 for a private semaphore, FUTEX_PRIVATE_FLAG (its
// LLL_SHARED, to be XORed with the thread's) for a process-shared one.
struct Sem {
  std::atomic<uint64_t> data;
  int shared;
  int pad;
};
static_assert(sizeof(Sem) <= sizeof(sem_t), "glibc's sem_t");
constexpr uint64_t kSemWaiter = uint64_t(1) << 32;
constexpr uint32_t kSemValueMax = 0x7fffffff; // SEM_VALUE_MAX

Sem *sem_of(sem_t *s) { return reinterpret_cast<Sem *>(s); }

bool sem_ours(sem_t *s) {
  return sync_enabled() &&
         __atomic_load_n(&sem_of(s)->shared, __ATOMIC_RELAXED) == 0;
}

// The value word, which waiters wait on (the low half, little-endian).
void *sem_value_word(sem_t *s) { return &sem_of(s)->data; }

// Takes a token if there is one (and, for a waiter, leaves the waiters
// at the same time).
bool sem_take(sem_t *s, bool waiter) {
  auto &d = sem_of(s)->data;
  uint64_t v = d.load(std::memory_order_relaxed);
  while (static_cast<uint32_t>(v))
    if (d.compare_exchange_weak(v, v - 1 - (waiter ? kSemWaiter : 0),
                                std::memory_order_acquire))
      return true;
  return false;
}

int sem_post_ours(sem_t *s) {
  san::release(s); // before the wait it ends, for ThreadSanitizer
  auto &d = sem_of(s)->data;
  uint64_t v = d.load(std::memory_order_relaxed);
  do {
    if (static_cast<uint32_t>(v) == kSemValueMax) {
      errno = EOVERFLOW;
      return -1;
    }
  } while (!d.compare_exchange_weak(v, v + 1, std::memory_order_release));
  if (v >> 32)
    wake_word(sem_value_word(s), 1);
  return 0;
}

// ---- read-write locks
// -----------------------------------------------------------

// The runtime's own on the storage of a pthread_rwlock_t (glibc's
// protocol keeps the writer's thread id, which two tasks on one thread
// share: one's write lock made the other's lock fail with EDEADLK). A
// state word: the readers holding it, and a bit for the writer; for each
// side a sequence word that an unlock advances before it wakes that side,
// and a count of its waiters. glibc's own fields keep what they hold
// there: the writer (a task's owner id, as for mutexes), the
// process-shared flag (a process-shared lock stays glibc's) and the kind
// (PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP: readers wait for the
// writers waiting; every other kind lets readers in while writers wait, as
// glibc does).
struct RwLock {
  std::atomic<uint32_t> state;    // __readers
  std::atomic<uint32_t> rd_seq;   // __writers
  std::atomic<uint32_t> wr_seq;   // __wrphase_futex
  std::atomic<uint32_t> rd_waits; // __writers_futex
  std::atomic<uint32_t> wr_waits; // __pad3
};
static_assert(sizeof(RwLock) <= offsetof(pthread_rwlock_t, __data.__cur_writer),
              "glibc's pthread_rwlock_t");
constexpr uint32_t kWriter = 0x80000000u;
constexpr uint32_t kReadersMax = 0x7fffffffu;

RwLock *rw_of(pthread_rwlock_t *l) { return reinterpret_cast<RwLock *>(l); }

bool rwlock_ours(pthread_rwlock_t *l) {
  return sync_enabled() &&
         __atomic_load_n(&l->__data.__shared, __ATOMIC_RELAXED) == 0;
}

bool prefers_writers(pthread_rwlock_t *l) {
  return __atomic_load_n(&l->__data.__flags, __ATOMIC_RELAXED) ==
         PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
}

int writer_of(pthread_rwlock_t *l) {
  return __atomic_load_n(&l->__data.__cur_writer, __ATOMIC_RELAXED);
}

// One attempt: 0, EBUSY, or EAGAIN (too many readers).
int rd_try(pthread_rwlock_t *l) {
  RwLock *r = rw_of(l);
  uint32_t s = r->state.load();
  for (;;) {
    if (s & kWriter)
      return EBUSY;
    if (prefers_writers(l) && r->wr_waits.load())
      return EBUSY;
    if (s == kReadersMax)
      return EAGAIN;
    if (r->state.compare_exchange_weak(s, s + 1))
      return 0;
  }
}

bool wr_try(pthread_rwlock_t *l, int me) {
  uint32_t free = 0;
  if (!rw_of(l)->state.compare_exchange_strong(free, kWriter))
    return false;
  __atomic_store_n(&l->__data.__cur_writer, me, __ATOMIC_RELAXED);
  return true;
}

void wake_side(std::atomic<uint32_t> *seq, int n) {
  seq->fetch_add(1);
  wake_word(seq, n);
}

// After a writer gave up waiting: the wake-up it may have taken goes to
// the next writer, and readers that waited only for it go in.
void wr_left(pthread_rwlock_t *l) {
  RwLock *r = rw_of(l);
  uint32_t left = r->wr_waits.fetch_sub(1) - 1;
  if (left && r->state.load() == 0)
    wake_side(&r->wr_seq, 1);
  if (!left && r->rd_waits.load())
    wake_side(&r->rd_seq, INT_MAX);
}

int rwlock_unlock(pthread_rwlock_t *l, void *caller) {
  RwLock *r = rw_of(l);
  uint32_t s = r->state.load();
  if (s)
    san::mutex_unlocking(l, s & kWriter ? 0 : san::kMutexRead, caller);
  if (s & kWriter) {
    __atomic_store_n(&l->__data.__cur_writer, 0, __ATOMIC_RELAXED);
    r->state.store(0);
    if (r->wr_waits.load())
      wake_side(&r->wr_seq, 1);
    if (r->rd_waits.load())
      wake_side(&r->rd_seq, INT_MAX);
    return 0;
  }
  if (s == 0)
    return EPERM;
  if (r->state.fetch_sub(1) == 1 && r->wr_waits.load())
    wake_side(&r->wr_seq, 1);
  return 0;
}

int rwlock_lock_thread(pthread_rwlock_t *l, bool write, const timespec *abs,
                       clockid_t clock, void *caller);

// Under ThreadSanitizer: l is held now, by a lock made at caller that
// succeeded (got 0). Returns got.
int tell_rwlock(pthread_rwlock_t *l, bool write, bool trylock, int got,
                void *caller) {
  if (got == 0)
    san::mutex_locked(
        l, (write ? 0 : san::kMutexRead) | (trylock ? san::kMutexTry : 0),
        caller);
  return got;
}

// A thread's read or write lock, until abs on clock, made at caller.
int rwlock_lock_blocking(pthread_rwlock_t *l, bool write,
                         const timespec *abs, clockid_t clock, void *caller) {
  return tell_rwlock(l, write, false,
                     rwlock_lock_thread(l, write, abs, clock, caller), caller);
}

int rwlock_lock_thread(pthread_rwlock_t *l, bool write, const timespec *abs,
                       clockid_t clock, void *caller) {
  RwLock *r = rw_of(l);
  int me = self_owner();
  if (writer_of(l) == me)
    return EDEADLK;
  int got = write ? (wr_try(l, me) ? 0 : EBUSY) : rd_try(l);
  if (got != EBUSY)
    return got;
  Deadline d;
  if (!make_deadline(abs, clock, d))
    return EINVAL;
  std::atomic<uint32_t> *seq = write ? &r->wr_seq : &r->rd_seq;
  san::mutex_waiting(l, write ? 0 : san::kMutexRead, caller);
  (write ? r->wr_waits : r->rd_waits).fetch_add(1);
  for (;;) {
    uint32_t v = seq->load();
    got = write ? (wr_try(l, me) ? 0 : EBUSY) : rd_try(l);
    if (got != EBUSY)
      break;
    if (thread_wait(seq, v, d) == ETIMEDOUT) {
      got = write ? (wr_try(l, me) ? 0 : EBUSY) : rd_try(l);
      if (got == EBUSY)
        got = ETIMEDOUT;
      break;
    }
  }
  if (write)
    wr_left(l);
  else
    r->rd_waits.fetch_sub(1);
  return got;
}

// ---- barriers
// -------------------------------------------------------------------

// The runtime's own on the storage of a pthread_barrier_t: the arrivals
// of this round, the round (what waiters wait on), the count, glibc's
// process-shared field (a process-shared barrier stays glibc's), and the
// callers still inside a wait, which pthread_barrier_destroy waits for
// (the last one out may destroy the barrier while the others still look
// at it).
struct Barrier {
  std::atomic<uint32_t> arrived;
  std::atomic<uint32_t> round;
  uint32_t count;
  int shared;
  std::atomic<uint32_t> inside;
};
static_assert(sizeof(Barrier) <= sizeof(pthread_barrier_t),
              "glibc's pthread_barrier_t");

Barrier *barrier_of(pthread_barrier_t *b) {
  return reinterpret_cast<Barrier *>(b);
}

bool barrier_ours(pthread_barrier_t *b) {
  return sync_enabled() &&
         __atomic_load_n(&barrier_of(b)->shared, __ATOMIC_RELAXED) == 0;
}

// Arrives: true for the last, which ends the round; otherwise false, with
// the round to wait out in *round.
bool barrier_arrive(pthread_barrier_t *b, uint32_t *round) {
  san::release(b); // before every departure, for ThreadSanitizer
  Barrier *x = barrier_of(b);
  x->inside.fetch_add(1);
  *round = x->round.load();
  if (x->arrived.fetch_add(1) + 1 < x->count)
    return false;
  x->arrived.store(0);
  x->round.fetch_add(1);
  wake_word(&x->round, INT_MAX);
  return true;
}

// The last look at the barrier of a caller whose wait is over.
int barrier_leave(pthread_barrier_t *b, int result) {
  san::acquire(b);
  Barrier *x = barrier_of(b);
  if (x->inside.fetch_sub(1) == 1)
    wake_word(&x->inside, INT_MAX);
  return result;
}

// ---- once
// -----------------------------------------------------------------------

// pthread_once's word, with glibc's values: 0 before, 2 once the
// initializer has run, and while one runs, 1 with the process's fork
// generation above it: an initializer that was running in the parent when
// it forked never ends in the child, whose callers start it again.
constexpr int kOnceDone = 2;
std::atomic<int> g_once_generation{0}; // advances by 4 in a forked child

std::atomic<int> *once_word(pthread_once_t *o) {
  return reinterpret_cast<std::atomic<int> *>(o);
}

int once_begin(pthread_once_t *o, int *seen) {
  std::atomic<int> *w = once_word(o);
  int mine = g_once_generation.load(std::memory_order_relaxed) | 1;
  int v = w->load(std::memory_order_acquire);
  for (;;) {
    if (v & kOnceDone) {
      san::acquire(o); // the initializer comes first, for ThreadSanitizer
      return COPYSTACK_ONCE_DONE;
    }
    if (v == mine) {
      *seen = v;
      return COPYSTACK_ONCE_WAIT;
    }
    if (w->compare_exchange_weak(v, mine, std::memory_order_acquire))
      return COPYSTACK_ONCE_RUN;
  }
}

void once_end(pthread_once_t *o, bool done) {
  if (done)
    san::release(o);
  once_word(o)->store(done ? kOnceDone : 0, std::memory_order_release);
  wake_word(o, INT_MAX);
}

// ---- the calls that park
// --------------------------------------------------------
// copystack_io_call for COPYSTACK_IO_MUTEX_LOCK: p[0] the mutex, p[1] the
// absolute timeout or null, n[0] its clock; COPYSTACK_IO_COND_WAIT: p[0]
// the condition variable, p[1] the mutex, p[2] the timeout or null, n[0]
// its clock, or -1 for the condition variable's. IoWait::done is the
// stage of a wait on a condition variable. For these and
// COPYSTACK_IO_RWLOCK, p[3] is the program's call site, for
// ThreadSanitizer's reports (io_calls.c).
constexpr uint64_t kCondWaiting = 0, kCondRelock = 1, kCondRelockTimedOut = 2;

constexpr auto finish = finish_call; // netpoll.h

// Parks on word until it no longer holds val, a wake, or deadline (0:
// none).
int park_on(copystack_io_call *c, IoWait *w, void *word, uint32_t val,
            uint64_t deadline) {
  if (!w) {
    w = new_wait(0);
    w->started = now_ns();
  }
  w->futex = static_cast<const std::atomic<uint32_t> *>(word);
  w->futex_val = val;
  w->futex_bits = ~0u;
  w->call_deadline = deadline;
  w->interrupt = kNever;
  c->wait = w;
  return park_pending(COPYSTACK_MUST_PARK);
}

int mutex_lock_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  auto *m = static_cast<pthread_mutex_t *>(c->p[0]);
  int me = self_owner();
  auto locked = [&] {
    if (sync_mode() == kSyncTold)
      tell_locked(m, false, c->p[3]);
    return finish(c, w, 0);
  };
  if (!w) {
    int r = held_by_me(m, me, false);
    if (r == 0)
      return locked();
    if (r > 0)
      return finish(c, w, r);
    if (try_take(m)) {
      taken(m, me);
      return locked();
    }
  }
  if (w && w->handed) { // an unlock passed it on, held
    taken(m, me);
    return locked();
  }
  uint64_t deadline = 0;
  if (!w) {
    Deadline d;
    if (!make_deadline(static_cast<const timespec *>(c->p[1]),
                       static_cast<clockid_t>(c->n[0]), d))
      return finish(c, w, EINVAL);
    deadline = d.mono;
  } else {
    deadline = w->call_deadline;
  }
  if (grab(m)) {
    taken(m, me);
    return locked();
  }
  if (end == kTimedOut)
    return finish(c, w, ETIMEDOUT);
  if (!w && sync_mode() == kSyncTold)
    san::mutex_waiting(m, 0, c->p[3]); // before its first wait
  return park_on(c, w, lock_word(m), 2, deadline);
}

int cond_wait_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  auto *cv = static_cast<pthread_cond_t *>(c->p[0]);
  auto *m = static_cast<pthread_mutex_t *>(c->p[1]);
  if (!w) {
    Deadline d;
    clockid_t clock =
        c->n[0] < 0 ? cond_clock(cv) : static_cast<clockid_t>(c->n[0]);
    if (!make_deadline(static_cast<const timespec *>(c->p[2]), clock, d))
      return finish(c, w, EINVAL);
    uint32_t seq = cond_seq(cv)->load();
    cond_waiters(cv)->fetch_add(1);
    int r = mutex_unlock(m, sync_mode() == kSyncTold, c->p[3]);
    if (r) {
      cond_waiters(cv)->fetch_sub(1);
      return finish(c, w, r);
    }
    w = new_wait(0);
    w->done = kCondWaiting;
    return park_on(c, w, cond_seq(cv), seq, d.mono);
  }
  int me = self_owner();
  if (w->done == kCondWaiting) {
    cond_waiters(cv)->fetch_sub(1);
    w->done = end == kTimedOut ? kCondRelockTimedOut : kCondRelock;
    w->started = now_ns(); // waits for the mutex from here
    w->handed = false;
  }
  int result = w->done == kCondRelockTimedOut ? ETIMEDOUT : 0;
  if (w->handed || grab(m)) {
    taken(m, me);
    if (sync_mode() == kSyncTold)
      tell_locked(m, false, c->p[3]);
    return finish(c, w, result);
  }
  return park_on(c, w, lock_word(m), 2, 0);
}

// COPYSTACK_IO_SEM_WAIT: p[0] the semaphore, p[1] the absolute timeout
// or null, n[0] its clock. Returns 0, or -1 with errno, as sem_wait.
int sem_wait_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  auto *s = static_cast<sem_t *>(c->p[0]);
  auto took = [&] {
    san::acquire(s);
    return finish(c, w, 0);
  };
  if (!w) {
    if (sem_take(s, false))
      return took();
    Deadline d;
    if (!make_deadline(static_cast<const timespec *>(c->p[1]),
                       static_cast<clockid_t>(c->n[0]), d)) {
      errno = EINVAL;
      return finish(c, w, -1);
    }
    sem_of(s)->data.fetch_add(kSemWaiter, std::memory_order_relaxed);
    w = new_wait(0);
    w->started = now_ns();
    w->call_deadline = d.mono;
  }
  if (sem_take(s, true))
    return took();
  if (end == kTimedOut || end == kInterrupted) {
    sem_of(s)->data.fetch_sub(kSemWaiter, std::memory_order_relaxed);
    errno = end == kTimedOut ? ETIMEDOUT : EINTR;
    return finish(c, w, -1);
  }
  park_on(c, w, sem_value_word(s), 0, w->call_deadline);
  w->interrupt = kAlways; // sem_wait returns EINTR after a handler
  w->signals = signal_counts();
  return park_pending(COPYSTACK_MUST_PARK);
}

// COPYSTACK_IO_RWLOCK: p[0] the lock, p[1] the absolute timeout or null,
// n[0] its clock, n[1] 1 for a write lock.
int rwlock_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  auto *l = static_cast<pthread_rwlock_t *>(c->p[0]);
  RwLock *r = rw_of(l);
  bool write = c->n[1] != 0;
  int me = self_owner();
  auto attempt = [&] { return write ? (wr_try(l, me) ? 0 : EBUSY) : rd_try(l); };
  auto leave = [&](int result) {
    if (write)
      wr_left(l);
    else
      r->rd_waits.fetch_sub(1);
    return finish(c, w, tell_rwlock(l, write, false, result, c->p[3]));
  };
  std::atomic<uint32_t> *seq = write ? &r->wr_seq : &r->rd_seq;
  if (!w) {
    if (writer_of(l) == me)
      return finish(c, w, EDEADLK);
    int got = attempt();
    if (got != EBUSY)
      return finish(c, w, tell_rwlock(l, write, false, got, c->p[3]));
    Deadline d;
    if (!make_deadline(static_cast<const timespec *>(c->p[1]),
                       static_cast<clockid_t>(c->n[0]), d))
      return finish(c, w, EINVAL);
    san::mutex_waiting(l, write ? 0 : san::kMutexRead, c->p[3]);
    (write ? r->wr_waits : r->rd_waits).fetch_add(1);
    w = new_wait(0);
    w->started = now_ns();
    w->call_deadline = d.mono;
  }
  uint32_t v = seq->load();
  int got = attempt();
  if (got != EBUSY)
    return leave(got);
  if (end == kTimedOut)
    return leave(ETIMEDOUT);
  return park_on(c, w, seq, v, w->call_deadline);
}

// COPYSTACK_IO_BARRIER: p[0] the barrier, n[0] 1 for its destruction
// (which waits for the callers still inside a wait). IoWait::done is the
// round a waiter waits out.
int barrier_call(copystack_io_call *c, IoWait *w) {
  auto *b = static_cast<pthread_barrier_t *>(c->p[0]);
  Barrier *x = barrier_of(b);
  if (c->n[0]) { // destroy
    uint32_t in = x->inside.load();
    if (!in)
      return finish(c, w, 0);
    return park_on(c, w, &x->inside, in, 0);
  }
  if (!w) {
    uint32_t round;
    if (barrier_arrive(b, &round))
      return finish(c, w,
                    barrier_leave(b, PTHREAD_BARRIER_SERIAL_THREAD));
    w = new_wait(0);
    w->started = now_ns();
    w->done = round;
  }
  if (x->round.load() != static_cast<uint32_t>(w->done))
    return finish(c, w, barrier_leave(b, 0));
  return park_on(c, w, &x->round, static_cast<uint32_t>(w->done), 0);
}

int barrier_wait_blocking(pthread_barrier_t *b) {
  uint32_t round;
  if (barrier_arrive(b, &round))
    return barrier_leave(b, PTHREAD_BARRIER_SERIAL_THREAD);
  Barrier *x = barrier_of(b);
  while (x->round.load() == round)
    thread_wait(&x->round, round, Deadline{});
  return barrier_leave(b, 0);
}

int barrier_destroy_blocking(pthread_barrier_t *b) {
  Barrier *x = barrier_of(b);
  while (uint32_t in = x->inside.load())
    thread_wait(&x->inside, in, Deadline{});
  return 0;
}

// COPYSTACK_IO_JOIN: p[0] the thread (a pthread_t), p[1] where its
// result goes, p[2] the deadline of a timed join (pthread_timedjoin_np,
// pthread_clockjoin_np) on clock n[0], or null. The kernel's wake-up of a thread's joiners (the thread id
// word it clears) reaches no task: a task polls with pthread_tryjoin_np,
// after each thread that ends (thread_tasks.cc announces the threads it
// started) or else after a back-off from 20 us to 4 ms.
std::atomic<uint32_t> g_thread_ends{0};
constexpr uint64_t kJoinFirstNs = 20 * 1000, kJoinMaxNs = 4 * 1000 * 1000;

int join_call(copystack_io_call *c, IoWait *w) {
  pthread_t t = reinterpret_cast<pthread_t>(c->p[0]);
  uint32_t ends = g_thread_ends.load();
  int r = pthread_tryjoin_np(t, static_cast<void **>(c->p[1]));
  if (r != EBUSY)
    return finish(c, w, r);
  if (!w) {
    Deadline d;
    if (!make_deadline(static_cast<const timespec *>(c->p[2]),
                       static_cast<clockid_t>(c->n[0]), d))
      return finish(c, w, EINVAL);
    w = new_wait(0);
    w->started = now_ns();
    w->done = kJoinFirstNs;
    w->until = d.mono;
  } else {
    w->done = std::min<uint64_t>(w->done * 2, kJoinMaxNs);
  }
  uint64_t now = now_ns();
  if (w->until && now >= w->until)
    return finish(c, w, ETIMEDOUT);
  uint64_t at = now + w->done;
  if (w->until && w->until < at)
    at = w->until;
  return park_on(c, w, &g_thread_ends, ends, at);
}

int forward(copystack_io_call *c);

// A semaphore wait made by the C library's: ThreadSanitizer intercepts
// sem_wait and sem_timedwait, not sem_clockwait, so a wait that took a
// token acquires what its post released here too.
int sem_wait_forwarded(copystack_io_call *c) {
  int r = forward(c);
  if (r == 0)
    san::acquire(c->p[0]);
  return r;
}

} // namespace

int pthread_sync_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  if (c->kind == COPYSTACK_IO_JOIN)
    return join_call(c, w);
  if (c->kind == COPYSTACK_IO_RWLOCK) {
    if (!rwlock_ours(static_cast<pthread_rwlock_t *>(c->p[0])))
      return finish(c, w, forward(c));
    return rwlock_call(c, w, end);
  }
  if (c->kind == COPYSTACK_IO_BARRIER) {
    if (!barrier_ours(static_cast<pthread_barrier_t *>(c->p[0])))
      return finish(c, w, forward(c));
    return barrier_call(c, w);
  }
  if (c->kind == COPYSTACK_IO_SEM_WAIT) {
    if (!sem_ours(static_cast<sem_t *>(c->p[0])))
      return finish(c, w, sem_wait_forwarded(c));
    return sem_wait_call(c, w, end);
  }
  if (c->kind == COPYSTACK_IO_MUTEX_LOCK) {
    if (!mutex_ours(static_cast<pthread_mutex_t *>(c->p[0])))
      return finish(c, w, forward(c));
    return mutex_lock_call(c, w, end);
  }
  if (!cond_ours(static_cast<pthread_cond_t *>(c->p[0])) ||
      !mutex_ours(static_cast<pthread_mutex_t *>(c->p[1])))
    return finish(c, w, forward(c));
  return cond_wait_call(c, w, end);
}

int64_t pthread_sync_blocking(copystack_io_call *c) {
  // A timed join: pthread_timedjoin_np for the realtime clock, which the
  // sanitizers intercept (ThreadSanitizer has no pthread_clockjoin_np: it
  // would not see the join).
  if (c->kind == COPYSTACK_IO_JOIN && c->p[2] &&
      static_cast<clockid_t>(c->n[0]) == CLOCK_REALTIME)
    return pthread_timedjoin_np(reinterpret_cast<pthread_t>(c->p[0]),
                                static_cast<void **>(c->p[1]),
                                static_cast<const timespec *>(c->p[2]));
  if (c->kind == COPYSTACK_IO_JOIN && c->p[2])
    return pthread_clockjoin_np(reinterpret_cast<pthread_t>(c->p[0]),
                                static_cast<void **>(c->p[1]),
                                static_cast<clockid_t>(c->n[0]),
                                static_cast<const timespec *>(c->p[2]));
  if (c->kind == COPYSTACK_IO_JOIN)
    return pthread_join(reinterpret_cast<pthread_t>(c->p[0]),
                        static_cast<void **>(c->p[1]));
  if (c->kind == COPYSTACK_IO_RWLOCK) {
    auto *l = static_cast<pthread_rwlock_t *>(c->p[0]);
    if (!rwlock_ours(l))
      return forward(c);
    return rwlock_lock_blocking(l, c->n[1] != 0,
                                static_cast<const timespec *>(c->p[1]),
                                static_cast<clockid_t>(c->n[0]), c->p[3]);
  }
  if (c->kind == COPYSTACK_IO_BARRIER) {
    auto *b = static_cast<pthread_barrier_t *>(c->p[0]);
    if (!barrier_ours(b))
      return forward(c);
    return c->n[0] ? barrier_destroy_blocking(b) : barrier_wait_blocking(b);
  }
  if (c->kind == COPYSTACK_IO_SEM_WAIT)
    return sem_wait_forwarded(c); // glibc's follows the same protocol
  if (c->kind == COPYSTACK_IO_MUTEX_LOCK) {
    auto *m = static_cast<pthread_mutex_t *>(c->p[0]);
    if (!mutex_ours(m))
      return forward(c);
    return mutex_lock_blocking(m, static_cast<const timespec *>(c->p[1]),
                               static_cast<clockid_t>(c->n[0]), c->p[3]);
  }
  auto *cv = static_cast<pthread_cond_t *>(c->p[0]);
  auto *m = static_cast<pthread_mutex_t *>(c->p[1]);
  if (!cond_ours(cv) || !mutex_ours(m))
    return forward(c);
  clockid_t clock =
      c->n[0] < 0 ? cond_clock(cv) : static_cast<clockid_t>(c->n[0]);
  return cond_wait_blocking(cv, m, static_cast<const timespec *>(c->p[2]),
                            clock, c->p[3]);
}

void pthread_sync_after_fork_child() {
  __copystack_thread.tid = 0;
  g_once_generation.fetch_add(4, std::memory_order_relaxed);
}

// Not under ThreadSanitizer: the pass turns a task's pthread_mutex_lock
// into an in-place pthread_mutex_trylock, which would tell TSan a
// try-lock, and TSan's deadlock detector records no lock order for those.
bool pthread_sync_owns_mutexes() { return sync_mode() == kSyncOn; }

void thread_ended() {
  g_thread_ends.fetch_add(1);
  futex_wake(&g_thread_ends, INT_MAX, ~0u);
}

} // namespace copystack_rt

using namespace copystack_rt;

// ---- interposers
// ----------------------------------------------------------------
// Every caller's, for the same protocol everywhere (above). Not in the
// runtime built with a sanitizer, which interposes them itself.
#ifndef COPYSTACK_NO_INTERPOSERS
extern "C" {

#define EXPORTED __attribute__((visibility("default")))
// The program's call site, for ThreadSanitizer's reports.
#define CALLER __builtin_return_address(0)

EXPORTED int CS_INTERPOSER(pthread_mutex_lock)(pthread_mutex_t *m) noexcept {
  if (!mutex_ours(m)) {
    return next().mutex_lock(m);
  }
  return mutex_lock_blocking(m, nullptr, CLOCK_REALTIME, CALLER);
}

// Trylock and unlock outside the common case (the runtime's without
// ThreadSanitizer), out of line: the common case's code is the same as
// if there were no other.
// (Also the first call of either, which decides the mode.)
static __attribute__((noinline)) int trylock_other(pthread_mutex_t *m,
                                            void *caller) noexcept {
  const signed char mode = sync_mode();
  if (mode == kSyncOff || !kind_ours(m))
    return next().mutex_trylock(m);
  return mutex_trylock(m, mode == kSyncTold, caller);
}

static __attribute__((noinline)) int unlock_other(pthread_mutex_t *m,
                                           void *caller) noexcept {
  const signed char mode = sync_mode();
  if (mode == kSyncOff || !kind_ours(m))
    return next().mutex_unlock(m);
  return mutex_unlock(m, mode == kSyncTold, caller);
}

// The interposers' test of their common case: the mode read as it is (an
// undecided one goes the other way, which decides it).
static inline bool common_case(pthread_mutex_t *m) {
  return g_sync.load(std::memory_order_relaxed) == kSyncOn && kind_ours(m);
}

EXPORTED int CS_INTERPOSER(pthread_mutex_trylock)(pthread_mutex_t *m) noexcept {
  if (!common_case(m))
    return trylock_other(m, CALLER);
  return mutex_trylock(m, false, nullptr);
}

EXPORTED int CS_INTERPOSER(pthread_mutex_timedlock)(
    pthread_mutex_t *m, const struct timespec *abs) noexcept {
  if (!mutex_ours(m)) {
    return next().mutex_timedlock(m, abs);
  }
  return mutex_lock_blocking(m, abs, CLOCK_REALTIME, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_mutex_clocklock)(
    pthread_mutex_t *m, clockid_t clock, const struct timespec *abs) noexcept {
  if (!mutex_ours(m)) {
    return next().mutex_clocklock(m, clock, abs);
  }
  return mutex_lock_blocking(m, abs, clock, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_mutex_unlock)(pthread_mutex_t *m) noexcept {
  if (!common_case(m))
    return unlock_other(m, CALLER);
  return mutex_unlock(m, false, nullptr);
}

EXPORTED int CS_INTERPOSER(pthread_cond_init)(
    pthread_cond_t *c, const pthread_condattr_t *attr) noexcept {
  int pshared = PTHREAD_PROCESS_PRIVATE;
  clockid_t clock = CLOCK_REALTIME;
  if (attr) {
    pthread_condattr_getpshared(attr, &pshared);
    pthread_condattr_getclock(attr, &clock);
  }
  if (!sync_enabled() || pshared != PTHREAD_PROCESS_PRIVATE) {
    return next().cond_init(c, attr);
  }
  memset(c, 0, sizeof *c);
  c->__data.__wrefs = clock == CLOCK_MONOTONIC ? 2 : 0;
  return 0;
}

EXPORTED int CS_INTERPOSER(pthread_cond_destroy)(pthread_cond_t *c) noexcept {
  if (!cond_ours(c)) {
    return next().cond_destroy(c);
  }
  return 0;
}

EXPORTED int CS_INTERPOSER(pthread_cond_signal)(pthread_cond_t *c) noexcept {
  if (!cond_ours(c)) {
    return next().cond_signal(c);
  }
  cond_wake(c, 1);
  return 0;
}

EXPORTED int CS_INTERPOSER(pthread_cond_broadcast)(pthread_cond_t *c) noexcept {
  if (!cond_ours(c)) {
    return next().cond_broadcast(c);
  }
  cond_wake(c, INT_MAX);
  return 0;
}

EXPORTED int CS_INTERPOSER(pthread_cond_wait)(pthread_cond_t *c,
                                             pthread_mutex_t *m) {
  if (!cond_ours(c) || !mutex_ours(m)) {
    return next().cond_wait(c, m);
  }
  return cond_wait_blocking(c, m, nullptr, CLOCK_REALTIME, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_cond_timedwait)(pthread_cond_t *c,
                                                  pthread_mutex_t *m,
                                                  const struct timespec *abs) {
  if (!cond_ours(c) || !mutex_ours(m)) {
    return next().cond_timedwait(c, m, abs);
  }
  return cond_wait_blocking(c, m, abs, cond_clock(c), CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_cond_clockwait)(pthread_cond_t *c,
                                                  pthread_mutex_t *m,
                                                  clockid_t clock,
                                                  const struct timespec *abs) {
  if (!cond_ours(c) || !mutex_ours(m)) {
    return next().cond_clockwait(c, m, clock, abs);
  }
  return cond_wait_blocking(c, m, abs, clock, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_init)(
    pthread_rwlock_t *l, const pthread_rwlockattr_t *attr) noexcept {
  int pshared = PTHREAD_PROCESS_PRIVATE;
  int kind = PTHREAD_RWLOCK_DEFAULT_NP;
  if (attr) {
    pthread_rwlockattr_getpshared(attr, &pshared);
    pthread_rwlockattr_getkind_np(attr, &kind);
  }
  if (!sync_enabled() || pshared != PTHREAD_PROCESS_PRIVATE)
    return next().rwlock_init(l, attr);
  memset(l, 0, sizeof *l);
  l->__data.__flags = static_cast<unsigned>(kind);
  return 0;
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_destroy)(
    pthread_rwlock_t *l) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_destroy(l);
  san::mutex_destroyed(l);
  return 0;
}

// A thread's (or foreign code's) locks; a task's rdlock and wrlock park
// (io_calls.c).
EXPORTED int CS_INTERPOSER(pthread_rwlock_rdlock)(pthread_rwlock_t *l) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_rdlock(l);
  return rwlock_lock_blocking(l, false, nullptr, CLOCK_REALTIME, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_timedrdlock)(
    pthread_rwlock_t *l, const struct timespec *abs) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_timedrdlock(l, abs);
  return rwlock_lock_blocking(l, false, abs, CLOCK_REALTIME, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_clockrdlock)(
    pthread_rwlock_t *l, clockid_t clock, const struct timespec *abs) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_clockrdlock(l, clock, abs);
  return rwlock_lock_blocking(l, false, abs, clock, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_wrlock)(pthread_rwlock_t *l) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_wrlock(l);
  return rwlock_lock_blocking(l, true, nullptr, CLOCK_REALTIME, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_timedwrlock)(
    pthread_rwlock_t *l, const struct timespec *abs) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_timedwrlock(l, abs);
  return rwlock_lock_blocking(l, true, abs, CLOCK_REALTIME, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_clockwrlock)(
    pthread_rwlock_t *l, clockid_t clock, const struct timespec *abs) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_clockwrlock(l, clock, abs);
  return rwlock_lock_blocking(l, true, abs, clock, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_tryrdlock)(
    pthread_rwlock_t *l) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_tryrdlock(l);
  if (writer_of(l) == self_owner())
    return EDEADLK;
  return tell_rwlock(l, false, true, rd_try(l), CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_trywrlock)(
    pthread_rwlock_t *l) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_trywrlock(l);
  return tell_rwlock(l, true, true, wr_try(l, self_owner()) ? 0 : EBUSY,
                     CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_rwlock_unlock)(pthread_rwlock_t *l) noexcept {
  if (!rwlock_ours(l))
    return next().rwlock_unlock(l);
  return rwlock_unlock(l, CALLER);
}

EXPORTED int CS_INTERPOSER(pthread_barrier_init)(
    pthread_barrier_t *b, const pthread_barrierattr_t *attr,
    unsigned count) noexcept {
  int pshared = PTHREAD_PROCESS_PRIVATE;
  if (attr)
    pthread_barrierattr_getpshared(attr, &pshared);
  if (!sync_enabled() || pshared != PTHREAD_PROCESS_PRIVATE)
    return next().barrier_init(b, attr, count);
  if (count == 0 || count > INT_MAX)
    return EINVAL;
  memset(b, 0, sizeof *b);
  barrier_of(b)->count = count;
  return 0;
}

EXPORTED int CS_INTERPOSER(pthread_barrier_destroy)(
    pthread_barrier_t *b) noexcept {
  if (!barrier_ours(b))
    return next().barrier_destroy(b);
  return barrier_destroy_blocking(b);
}

EXPORTED int CS_INTERPOSER(pthread_barrier_wait)(pthread_barrier_t *b) noexcept {
  if (!barrier_ours(b))
    return next().barrier_wait(b);
  return barrier_wait_blocking(b);
}

int __copystack_once_begin(pthread_once_t *o, int *seen) {
  if (!sync_enabled())
    return COPYSTACK_ONCE_NOT_OURS;
  return once_begin(o, seen);
}

void __copystack_once_end(pthread_once_t *o, int done) {
  once_end(o, done != 0);
}

int __copystack_once_forward(pthread_once_t *o, void (*init)(void)) {
  return next().once(o, init);
}

// A thread's (or foreign code's) once: it blocks while another caller's
// initializer runs. Not noexcept: the initializer may throw (or a
// cancellation unwind through it), and the next caller then runs it.
EXPORTED int CS_INTERPOSER(pthread_once)(pthread_once_t *o,
                                         void (*init)(void)) {
  if (!sync_enabled())
    return next().once(o, init);
  for (;;) {
    int seen = 0;
    switch (once_begin(o, &seen)) {
    case COPYSTACK_ONCE_DONE:
      return 0;
    case COPYSTACK_ONCE_RUN:
      try {
        init();
      } catch (...) {
        once_end(o, false);
        throw;
      }
      once_end(o, true);
      return 0;
    default:
      thread_wait(o, static_cast<uint32_t>(seen), Deadline{});
    }
  }
}

// C11's, for the threads' side (a task's waits park: io_calls.c): glibc's
// would lock and wait on the same objects through its internal calls,
// with a thread's owner id and a wake that reaches no task. Through the
// pthread interposers above.
EXPORTED int CS_INTERPOSER(mtx_lock)(mtx_t *m) {
  return copystack_c11_result(
      CS_INTERPOSER(pthread_mutex_lock)(reinterpret_cast<pthread_mutex_t *>(m)));
}

EXPORTED int CS_INTERPOSER(mtx_timedlock)(mtx_t *m,
                                          const struct timespec *abs) {
  return copystack_c11_result(CS_INTERPOSER(pthread_mutex_timedlock)(
      reinterpret_cast<pthread_mutex_t *>(m), abs));
}

EXPORTED int CS_INTERPOSER(mtx_trylock)(mtx_t *m) {
  return copystack_c11_result(CS_INTERPOSER(pthread_mutex_trylock)(
      reinterpret_cast<pthread_mutex_t *>(m)));
}

EXPORTED int CS_INTERPOSER(mtx_unlock)(mtx_t *m) {
  return copystack_c11_result(CS_INTERPOSER(pthread_mutex_unlock)(
      reinterpret_cast<pthread_mutex_t *>(m)));
}

EXPORTED int CS_INTERPOSER(cnd_signal)(cnd_t *c) {
  return copystack_c11_result(
      CS_INTERPOSER(pthread_cond_signal)(reinterpret_cast<pthread_cond_t *>(c)));
}

EXPORTED int CS_INTERPOSER(cnd_broadcast)(cnd_t *c) {
  return copystack_c11_result(CS_INTERPOSER(pthread_cond_broadcast)(
      reinterpret_cast<pthread_cond_t *>(c)));
}

EXPORTED int CS_INTERPOSER(cnd_wait)(cnd_t *c, mtx_t *m) {
  return copystack_c11_result(
      CS_INTERPOSER(pthread_cond_wait)(reinterpret_cast<pthread_cond_t *>(c),
                                       reinterpret_cast<pthread_mutex_t *>(m)));
}

EXPORTED int CS_INTERPOSER(cnd_timedwait)(cnd_t *c, mtx_t *m,
                                          const struct timespec *abs) {
  return copystack_c11_result(CS_INTERPOSER(pthread_cond_timedwait)(
      reinterpret_cast<pthread_cond_t *>(c),
      reinterpret_cast<pthread_mutex_t *>(m), abs));
}

EXPORTED void CS_INTERPOSER(call_once)(once_flag *once, void (*init)(void)) {
  CS_INTERPOSER(pthread_once)(reinterpret_cast<pthread_once_t *>(once), init);
}

EXPORTED int CS_INTERPOSER(sem_post)(sem_t *s) noexcept {
  if (!sem_ours(s))
    return next().sem_post(s);
  return sem_post_ours(s);
}

} // extern "C"
#endif

namespace copystack_rt {
namespace {

// A call the runtime does not take over: the C library's (or the
// sanitizer's) definition, blocking.
int forward(copystack_io_call *c) {
  if (c->kind == COPYSTACK_IO_RWLOCK) {
    auto *l = static_cast<pthread_rwlock_t *>(c->p[0]);
    auto *abs = static_cast<const timespec *>(c->p[1]);
    auto clock = static_cast<clockid_t>(c->n[0]);
    if (c->n[1])
      return abs ? next().rwlock_clockwrlock(l, clock, abs)
                 : next().rwlock_wrlock(l);
    return abs ? next().rwlock_clockrdlock(l, clock, abs)
               : next().rwlock_rdlock(l);
  }
  if (c->kind == COPYSTACK_IO_BARRIER) {
    auto *b = static_cast<pthread_barrier_t *>(c->p[0]);
    return c->n[0] ? next().barrier_destroy(b) : next().barrier_wait(b);
  }
  if (c->kind == COPYSTACK_IO_SEM_WAIT) {
    auto *s = static_cast<sem_t *>(c->p[0]);
    auto *abs = static_cast<const timespec *>(c->p[1]);
    if (!abs)
      return next().sem_wait(s);
    return next().sem_clockwait(s, static_cast<clockid_t>(c->n[0]), abs);
  }
  auto *m = static_cast<pthread_mutex_t *>(
      c->kind == COPYSTACK_IO_MUTEX_LOCK ? c->p[0] : c->p[1]);
  auto *cv = static_cast<pthread_cond_t *>(c->p[0]);
  auto *abs = static_cast<const timespec *>(
      c->kind == COPYSTACK_IO_MUTEX_LOCK ? c->p[1] : c->p[2]);
  auto clock = static_cast<clockid_t>(c->n[0]);
  if (c->kind == COPYSTACK_IO_MUTEX_LOCK) {
    if (!abs) {
      return next().mutex_lock(m);
    }
    return next().mutex_clocklock(m, clock, abs);
  }
  if (!abs) {
    return next().cond_wait(cv, m);
  }
  if (c->n[0] < 0) {
    return next().cond_timedwait(cv, m, abs);
  }
  return next().cond_clockwait(cv, m, clock, abs);
}

} // namespace
} // namespace copystack_rt
