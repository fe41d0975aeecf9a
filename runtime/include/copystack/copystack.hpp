// copystack.hpp: the C++ API of the copystack runtime, over copystack.h.
//
// Tasks are Go's goroutines: copystack::go(callable) starts one on a 2 KiB
// copyable stack, and the scheduler runs it on one of its worker threads.
// Chan<T>, select, WaitGroup and Mutex are Go's channels, select statement,
// sync.WaitGroup and sync.Mutex. Everything that blocks is inline: it must
// be compiled with the copystack plugin, because a task parks from its own
// stack. See docs/tasks.md.
#ifndef COPYSTACK_COPYSTACK_HPP
#define COPYSTACK_COPYSTACK_HPP

#include "copystack/copystack.h"
#include "copystack/version.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace copystack {

// ---- tasks -------------------------------------------------------------------

namespace detail {

template <class F> void invoke_inline(void *closure) {
  F *f = std::launder(static_cast<F *>(closure));
  (*f)();
  f->~F();
}

template <class F> void invoke_heap(void *closure) {
  std::unique_ptr<F> f(*static_cast<F **>(closure));
  (*f)();
}

template <class F> constexpr bool fits_in_task =
    sizeof(F) <= COPYSTACK_CLOSURE_BYTES && alignof(F) <= 16 &&
    std::is_nothrow_move_constructible_v<F>;

// A callable that can be empty (a function pointer, a std::function) must
// not be: the task would fail far from the go() that started it.
template <class F> void check_callable(const F &f) {
  if constexpr (std::is_constructible_v<bool, const F &>)
    if (!static_cast<bool>(f))
      __copystack_misuse("copystack::go: the callable is empty (a null "
                         "function pointer or an empty std::function)");
}

// Starts f() as a task on a stack of at least hint bytes (0: the usual
// start size); site is where go() was called, for the task dump's
// "created by".
template <class F> void spawn(F &&f, size_t hint, void *site) {
  using Fn = std::decay_t<F>;
  check_callable(f);
  void *closure = nullptr;
  if constexpr (fits_in_task<Fn>) {
    Fn local(std::forward<F>(f)); // may throw: before the task exists
    void *task =
        __copystack_go_prepare_sized(&invoke_inline<Fn>, &closure, hint);
    ::new (closure) Fn(std::move(local));
    __copystack_go_commit_at(task, site);
  } else {
    auto heap = std::make_unique<Fn>(std::forward<F>(f));
    void *task =
        __copystack_go_prepare_sized(&invoke_heap<Fn>, &closure, hint);
    *static_cast<Fn **>(closure) = heap.release();
    __copystack_go_commit_at(task, site);
  }
}

} // namespace detail

// The go() overloads are never inlined: each passes its own return address,
// the caller's call site, to the runtime as the task's creator.
#define COPYSTACK_SPAWN_SITE __attribute__((noinline))

// Starts f() as a new task (Go's `go f()`). A callable of up to 32 bytes
// lives in the task's own structure; a larger one on the heap. An exception
// that leaves f ends the program with a message and the task dump, like a
// goroutine's panic. An empty callable (a null function pointer, an empty
// std::function) stops the program at once.
template <class F> COPYSTACK_SPAWN_SITE void go(F &&f) {
  detail::spawn(std::forward<F>(f), 0, __builtin_return_address(0));
}

// A spawn-time hint: go(stack_size(64 << 10), f) starts the task on a
// stack of at least that many bytes, for a task known to go deep.
struct stack_size {
  explicit stack_size(size_t b) : bytes(b) {}
  size_t bytes;
};

template <class F> COPYSTACK_SPAWN_SITE void go(stack_size hint, F &&f) {
  detail::spawn(std::forward<F>(f), hint.bytes, __builtin_return_address(0));
}

// go(f, args...): f(args...) with the arguments copied (or moved) into the
// task, as `go f(x, y)` evaluates them before the task starts.
template <class F, class A, class... As,
          class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, stack_size>>>
COPYSTACK_SPAWN_SITE void go(F &&f, A &&a, As &&...as) {
  detail::check_callable(f);
  detail::spawn(
      [fn = std::forward<F>(f),
       args = std::make_tuple(std::forward<A>(a),
                              std::forward<As>(as)...)]() mutable {
        std::apply(fn, std::move(args));
      },
      0, __builtin_return_address(0));
}

// Runs f() as a task bound to the calling thread and returns when it has
// finished (copystack_run). f may start tasks and block.
template <class F> void run(F &&f) {
  using Fn = std::remove_reference_t<F>;
  detail::check_callable(f);
  copystack_run([](void *p) { (*static_cast<Fn *>(p))(); },
                static_cast<void *>(std::addressof(f)));
}

// Lets other tasks run (Go's runtime.Gosched).
inline void yield() { copystack_yield(); }

// Parks the calling task for at least d.
template <class Rep, class Period>
void sleep_for(std::chrono::duration<Rep, Period> d) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  copystack_sleep_ns(ns > 0 ? static_cast<uint64_t>(ns) : 0);
}

// Tasks that exist (Go's runtime.NumGoroutine).
inline uint64_t num_tasks() { return copystack_num_tasks(); }

// Worker threads (Go's GOMAXPROCS); set before the first task starts.
inline int workers() { return copystack_workers(); }
inline int set_workers(int n) { return copystack_set_workers(n); }

inline bool in_task() { return copystack_in_task() != 0; }

// A collection now: shrinks the stacks of suspended tasks that use little
// of them, and gives free stack memory back to the OS (docs/stacks.md).
inline void collect() { copystack_collect(); }

inline copystack_stats stats() {
  copystack_stats s;
  copystack_get_stats(&s);
  return s;
}

// ---- descriptors -----------------------------------------------------------------
// read, write, accept, poll, sleep... in a task park it instead of blocking
// its worker (docs/tasks.md, "Blocking calls"). Deadlines are Go's
// SetDeadline, on steady_clock (the runtime's clock, CLOCK_MONOTONIC); a
// default-constructed time_point means none.

using deadline = std::chrono::steady_clock::time_point;

namespace detail {
inline uint64_t deadline_ns(deadline t) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                t.time_since_epoch())
                .count();
  return ns > 0 ? static_cast<uint64_t>(ns) : 0;
}
} // namespace detail

// Blocking calls on fd in tasks, pending and future, fail with ETIMEDOUT
// once t passes (Go's SetReadDeadline, SetWriteDeadline, SetDeadline). A
// time already past cancels the pending ones. Returns 0, or -1 (errno).
inline int set_read_deadline(int fd, deadline t) {
  return copystack_fd_set_deadline(fd, COPYSTACK_FD_READ,
                                   detail::deadline_ns(t));
}
inline int set_write_deadline(int fd, deadline t) {
  return copystack_fd_set_deadline(fd, COPYSTACK_FD_WRITE,
                                   detail::deadline_ns(t));
}
inline int set_deadline(int fd, deadline t) {
  return copystack_fd_set_deadline(fd, COPYSTACK_FD_READ | COPYSTACK_FD_WRITE,
                                   detail::deadline_ns(t));
}

// Parks the calling task until fd is ready for events (POLLIN, POLLOUT...)
// or until `until`: the poll(2) revents, 0 at `until`, -1 with errno
// (EBADF: closed meanwhile; ETIMEDOUT: fd's deadline passed).
inline int wait_fd(int fd, int events, deadline until = deadline()) {
  return copystack_fd_wait(fd, events, detail::deadline_ns(until));
}

// ---- channels ------------------------------------------------------------------

namespace detail {

// Raw storage for one T, constructed by the runtime.
template <class T> struct Slot {
  alignas(T) unsigned char bytes[sizeof(T)];
  void *raw() { return bytes; }
  T *get() { return std::launder(reinterpret_cast<T *>(bytes)); }
  T take() {
    T v(std::move(*get()));
    get()->~T();
    return v;
  }
};

template <class T> void move_element(void *dst, void *src) {
  ::new (dst) T(std::move(*static_cast<T *>(src)));
}

template <class T> void destroy_element(void *obj) {
  static_cast<T *>(obj)->~T();
}

// A nil channel blocks forever, as in Go.
[[noreturn]] inline void block_forever() {
  for (;;)
    copystack_select(nullptr, 0, 1);
}

} // namespace detail

template <class T> class Chan {
  static_assert(std::is_move_constructible_v<T>,
                "channel elements are moved in and out");

public:
  // A nil channel: sends and receives block forever, select never picks
  // it (Go's `var ch chan T`).
  Chan() = default;
  // A channel of capacity elements; 0 is unbuffered (Go's make(chan T, n)).
  explicit Chan(size_t capacity) : c_(make(capacity)) {}
  // Adopts a reference from the C API.
  static Chan adopt(copystack_chan *c) {
    Chan ch;
    ch.c_ = c;
    return ch;
  }

  Chan(const Chan &o) : c_(o.c_) {
    if (c_)
      copystack_chan_retain(c_);
  }
  Chan(Chan &&o) noexcept : c_(o.c_) { o.c_ = nullptr; }
  Chan &operator=(Chan o) noexcept {
    std::swap(c_, o.c_);
    return *this;
  }
  ~Chan() {
    if (c_)
      copystack_chan_release(c_);
  }

  void send(const T &v) {
    T copy(v);
    send(std::move(copy));
  }
  void send(T &&v) {
    if (!c_)
      detail::block_forever();
    copystack_chan_send(c_, std::addressof(v));
  }

  // The next element, or nullopt once the channel is closed and drained.
  std::optional<T> recv() {
    if (!c_)
      detail::block_forever();
    detail::Slot<T> slot;
    if (!copystack_chan_recv(c_, slot.raw()))
      return std::nullopt;
    return std::optional<T>(slot.take());
  }
  // Go's `v, ok := <-ch`: false (and out unchanged) once closed and drained.
  bool recv(T &out) {
    std::optional<T> v = recv();
    if (!v)
      return false;
    out = std::move(*v);
    return true;
  }

  // Without blocking: false when it would have to wait.
  bool try_send(T v);
  std::optional<T> try_recv();

  // Closing twice, closing a nil channel, or sending on a closed channel
  // stops the program.
  void close() {
    if (!c_)
      __copystack_misuse("copystack::Chan::close: close of nil channel");
    copystack_chan_close(c_);
  }
  size_t size() const { return c_ ? copystack_chan_len(c_) : 0; }
  size_t capacity() const { return c_ ? copystack_chan_cap(c_) : 0; }
  copystack_chan *get() const { return c_; }
  explicit operator bool() const { return c_ != nullptr; }
  bool operator==(const Chan &o) const { return c_ == o.c_; }

  // for (T v : ch): receives until the channel is closed (Go's range).
  class iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = T *;
    using reference = T &;
    iterator() = default;
    explicit iterator(Chan *ch) : ch_(ch) { ++*this; }
    T &operator*() { return *v_; }
    iterator &operator++() {
      v_ = ch_->recv();
      if (!v_)
        ch_ = nullptr;
      return *this;
    }
    bool operator==(const iterator &o) const { return ch_ == o.ch_; }
    bool operator!=(const iterator &o) const { return ch_ != o.ch_; }

  private:
    Chan *ch_ = nullptr;
    std::optional<T> v_;
  };
  iterator begin() { return iterator(this); }
  iterator end() { return iterator(); }

private:
  static copystack_chan *make(size_t capacity) {
    if constexpr (std::is_trivially_copyable_v<T>)
      return copystack_chan_make(sizeof(T), capacity);
    else
      return copystack_chan_make_with(sizeof(T), capacity,
                                      &detail::move_element<T>,
                                      &detail::destroy_element<T>);
  }
  copystack_chan *c_ = nullptr;
};

// Go's make(chan T, capacity).
template <class T> Chan<T> make_chan(size_t capacity = 0) {
  return Chan<T>(capacity);
}

// ---- select ----------------------------------------------------------------------

// A receive case: on success *out gets the element and *ok (if given) is
// true; if the channel was closed, *out is left alone and *ok is false.
template <class T> struct RecvCase {
  Chan<T> *ch;
  T *out;
  bool *ok;
  detail::Slot<T> slot;

  copystack_select_case raw() {
    return copystack_select_case{ch->get(), slot.raw(), COPYSTACK_RECV, 0};
  }
  void finish(const copystack_select_case &c, bool won) {
    if (!won)
      return;
    if (ok)
      *ok = c.ok != 0;
    if (c.ok)
      *out = slot.take();
  }
};

// A send case: the value is sent only if this case is chosen.
template <class T> struct SendCase {
  Chan<T> *ch;
  T value;

  copystack_select_case raw() {
    return copystack_select_case{ch->get(), std::addressof(value),
                                 COPYSTACK_SEND, 0};
  }
  void finish(const copystack_select_case &, bool) {}
};

template <class T>
RecvCase<T> recv_case(Chan<T> &ch, T &out, bool *ok = nullptr) {
  return RecvCase<T>{&ch, std::addressof(out), ok, {}};
}

template <class T, class V> SendCase<T> send_case(Chan<T> &ch, V &&value) {
  return SendCase<T>{&ch, T(std::forward<V>(value))};
}

namespace detail {

template <class... Cases, size_t... I>
int select_impl(bool block, std::index_sequence<I...>, Cases &...cases) {
  copystack_select_case raw[sizeof...(Cases) ? sizeof...(Cases) : 1] = {
      cases.raw()...};
  int r = copystack_select(raw, static_cast<int>(sizeof...(Cases)),
                           block ? 1 : 0);
  (cases.finish(raw[I], static_cast<int>(I) == r), ...);
  return r;
}

} // namespace detail

// Go's select: waits until one case can proceed, does it, and returns its
// index (cases are tried in random order, so none starves). With no cases
// it blocks forever.
template <class... Cases> int select(Cases &&...cases) {
  return detail::select_impl(true, std::index_sequence_for<Cases...>{},
                             cases...);
}

// select with a default case: -1 when no case can proceed now.
template <class... Cases> int try_select(Cases &&...cases) {
  return detail::select_impl(false, std::index_sequence_for<Cases...>{},
                             cases...);
}

template <class T> bool Chan<T>::try_send(T v) {
  return try_select(SendCase<T>{this, std::move(v)}) == 0;
}

template <class T> std::optional<T> Chan<T>::try_recv() {
  detail::Slot<T> slot;
  copystack_select_case c{c_, slot.raw(), COPYSTACK_RECV, 0};
  if (copystack_select(&c, 1, 0) != 0 || !c.ok)
    return std::nullopt;
  return std::optional<T>(slot.take());
}

// ---- time --------------------------------------------------------------------------

// A channel that receives the time (copystack_now_ns) once, d from now
// (Go's time.After).
template <class Rep, class Period>
Chan<uint64_t> after(std::chrono::duration<Rep, Period> d) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  return Chan<uint64_t>::adopt(
      copystack_after(ns > 0 ? static_cast<uint64_t>(ns) : 0));
}

// ---- WaitGroup and Mutex --------------------------------------------------------

// Go's sync.WaitGroup, with Go 1.25's wg.Go(f).
class WaitGroup {
public:
  WaitGroup() = default;
  WaitGroup(const WaitGroup &) = delete;
  WaitGroup &operator=(const WaitGroup &) = delete;

  void add(int64_t delta) { copystack_waitgroup_add(&wg_, delta); }
  void done() { copystack_waitgroup_done(&wg_); }
  void wait() { copystack_waitgroup_wait(&wg_); }
  // add(1), then f() in a new task that calls done() when f returns.
  template <class F> COPYSTACK_SPAWN_SITE void go(F &&f) {
    detail::check_callable(f);
    add(1);
    detail::spawn(
        [this, fn = std::forward<F>(f)]() mutable {
          fn();
          done();
        },
        0, __builtin_return_address(0));
  }

private:
  copystack_waitgroup wg_ = COPYSTACK_WAITGROUP_INIT;
};

// Go's sync.Mutex; works with std::lock_guard and std::unique_lock. A task
// waiting for it parks; unlocking hands it to the first waiter.
class Mutex {
public:
  Mutex() = default;
  Mutex(const Mutex &) = delete;
  Mutex &operator=(const Mutex &) = delete;

  void lock() { copystack_mutex_lock(&m_); }
  bool try_lock() { return copystack_mutex_trylock(&m_) != 0; }
  void unlock() { copystack_mutex_unlock(&m_); }

private:
  copystack_mutex m_ = COPYSTACK_MUTEX_INIT;
};

} // namespace copystack

#endif
