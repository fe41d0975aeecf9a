// sync.cc: channels, select, wait groups and mutexes (Go's chan.go,
// select.go, sync.WaitGroup, sync.Mutex), on the parking protocol of
// scheduler.h. The C API's inline halves (copystack.h) call the _begin
// functions through the foreign-call trampoline; a _begin that must block
// registers the task's waiter and returns 2 with the primitive's lock held,
// and the task parks with __copystack_unlock_after_park releasing it.
//
// Elements never stay on a task's stack while it waits: a sender that
// blocks moves its element into its waiter's buffer, and a sender that
// finds a blocked receiver moves the element into the receiver's buffer, which
// the receiver moves out when it runs again. So no runtime structure points
// into a stack that may move.
#include "platform/split_stack_notes.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "sched/scheduler.h"
#include "platform/spinlock.h"
#include "platform/stats.h"
#include "sched/sync.h"
#include "platform/thread.h"

#include "copystack/copystack.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

namespace copystack_rt {

// A FIFO of waiters, doubly linked through Waiter::next/prev.
struct WaitQueue {
  Waiter *head = nullptr, *tail = nullptr;

  void push(Waiter *w) {
    w->queued = true;
    w->next = nullptr;
    w->prev = tail;
    if (tail)
      tail->next = w;
    else
      head = w;
    tail = w;
  }
  void remove(Waiter *w) {
    if (!w->queued)
      return; // a select's waiter a losing pop already took out
    w->queued = false;
    if (w->prev)
      w->prev->next = w->next;
    else
      head = w->next;
    if (w->next)
      w->next->prev = w->prev;
    else
      tail = w->prev;
    w->next = w->prev = nullptr;
  }
  Waiter *pop();
};

// A select parks on several channels at once; the first case that fires
// wins, the others are withdrawn when the task runs again.
struct SelectState {
  std::atomic<int> fired{-1};
  int n = 0;
  Waiter *waiters = nullptr;       // one per case
  copystack_chan **locked = nullptr; // the channels it locked, sorted
  int nlocked = 0;
};

// Skips waiters of selects that another case already won (Go's
// sg.isSelect && !selectDone.CompareAndSwap(0, 1)).
Waiter *WaitQueue::pop() {
  while (Waiter *w = head) {
    remove(w);
    if (w->index < 0)
      return w;
    int expected = -1;
    if (w->task->select->fired.compare_exchange_strong(expected, w->index))
      return w;
  }
  return nullptr;
}

} // namespace copystack_rt

using namespace copystack_rt;

struct copystack_chan {
  SpinLock lock; // first: __copystack_chan_lock_of returns the channel
  std::atomic<int> refs{1};
  size_t elem_size = 0, capacity = 0;
  size_t count = 0, head = 0;
  unsigned char *ring = nullptr;
  bool closed = false;
  WaitQueue sendq, recvq;
  void (*move)(void *, void *) = nullptr;
  void (*destroy)(void *) = nullptr;

  void *slot(size_t i) { return ring + ((head + i) % capacity) * elem_size; }
  // Into the runtime's buffers: the caller still owns (and destroys) src.
  void transfer(void *dst, void *src) {
    if (move)
      move(dst, src);
    else if (elem_size == 8) // a pointer or a number: a move, not a call
      memcpy(dst, src, 8);
    else if (elem_size == 4)
      memcpy(dst, src, 4);
    else
      memcpy(dst, src, elem_size);
  }
  // Out of a runtime buffer (or between two): src's life ends here.
  void take(void *dst, void *src) {
    transfer(dst, src);
    if (destroy)
      destroy(src);
  }
  void zero(void *elem) {
    if (!move)
      memset(elem, 0, elem_size);
  }
};

namespace {

constexpr size_t kInlineBuffer = 32;

// A waiter's element buffer: the task's own small buffer, or the heap.
struct WaiterBuffer {
  static void *acquire(Task *t, Waiter *w, size_t size) {
    if (size <= kInlineBuffer && w == &t->wait)
      return w->buf = t->elem;
    return w->buf = aligned_alloc(16, (size + 15) & ~size_t(15));
  }
  static void release(Task *t, Waiter *w) {
    if (w->buf && w->buf != t->elem)
      free(w->buf);
    w->buf = nullptr;
  }
};

// The calling task, which is about to wait in `call`; outside a task there
// is nothing that could wait.
Task *current_task(const char *call) {
  Task *t = __copystack_thread.task;
  if (!t)
    outside_task(call);
  return t;
}

// A null handle: Go panics on a nil channel's close, and a null pointer
// anywhere else in the C API is the same kind of mistake.
[[noreturn]] void null_handle(const char *call, const char *what) {
  fatal("%s: %s is null", call, what);
}

// The task's waiter record, reset for a wait on one primitive (a select
// uses one per case instead).
Waiter *fresh_waiter(Task *t) {
  Waiter *w = &t->wait;
  w->index = -1;
  w->ok = 0;
  return w;
}

// Queues the calling task on q, whose lock the caller holds: the inline
// caller parks next, and the lock is released once it has parked.
int wait_on(WaitQueue *q, const char *call, WaitReason why) {
  Task *t = current_task(call);
  q->push(fresh_waiter(t));
  set_waiting(t, why);
  return park_pending(COPYSTACK_MUST_PARK);
}

void unlock_all(copystack_chan **cs, int n) {
  for (int i = n - 1; i >= 0; --i)
    cs[i]->lock.unlock();
}

// ThreadSanitizer's view of the primitives (platform/sanitizers.h): the
// happens-before edges of Go's memory model, where Go's race detector puts
// them (chan.go's racenotify and racesync, sync.Mutex, sync.WaitGroup).
// Calls that do nothing without TSan.

// The operation that completes a parked task's wait took its waiter: what
// the task did before it parked comes before what follows (a receive from
// an unbuffered channel happens before the send completes, and a send
// before the receive completes).
void took(Waiter *w) { san::acquire_task(w->task); }

// What happened here comes before what the woken task does next.
void wake(Task *t) {
  san::release_task(t);
  ready(t);
}

// A buffered channel's slot, around the element's move in or out: the
// k-th send happens before the k-th receive completes, and the k-th
// receive before the (k+capacity)-th send completes.
void slot_begin(void *slot) { san::acquire(slot); }
void slot_end(void *slot) { san::release(slot); }

} // namespace

namespace {
std::atomic<uint64_t> g_chan_bytes{0};

size_t ring_bytes(size_t elem_size, size_t capacity) {
  return capacity ? ((capacity * elem_size + 15) & ~size_t(15)) + 16 : 0;
}
} // namespace

uint64_t copystack_rt::chan_bytes_inuse() { return g_chan_bytes.load(); }

bool copystack_rt::chan_try_send(copystack_chan *c, void *elem) {
  c->lock.lock();
  if (c->closed) {
    c->lock.unlock();
    return false;
  }
  if (Waiter *w = c->recvq.pop()) {
    took(w);
    c->transfer(w->buf, elem);
    w->ok = 1;
    c->lock.unlock();
    wake(w->task);
    return true;
  }
  bool room = c->count < c->capacity;
  if (room) {
    void *slot = c->slot(c->count);
    slot_begin(slot);
    c->transfer(slot, elem);
    slot_end(slot);
    ++c->count;
  }
  c->lock.unlock();
  return room;
}

extern "C" {

// ---- channels ----------------------------------------------------------------

copystack_chan *copystack_chan_make_with(size_t elem_size, size_t capacity,
                                         void (*move)(void *, void *),
                                         void (*destroy)(void *)) {
  auto *c = new copystack_chan;
  c->elem_size = elem_size;
  c->capacity = capacity;
  c->move = move;
  c->destroy = destroy;
  if (elem_size && capacity > (SIZE_MAX >> 1) / elem_size)
    fatal("copystack_chan_make: a channel of %zu elements of %zu bytes is "
          "too large", capacity, elem_size);
  size_t ring = ring_bytes(elem_size, capacity);
  if (ring) {
    c->ring = static_cast<unsigned char *>(aligned_alloc(16, ring));
    if (!c->ring)
      fatal("out of memory for a channel of %zu elements of %zu bytes",
            capacity, elem_size);
  }
  g_chan_bytes += sizeof(copystack_chan) + ring;
  return c;
}

copystack_chan *copystack_chan_make(size_t elem_size, size_t capacity) {
  return copystack_chan_make_with(elem_size, capacity, nullptr, nullptr);
}

void copystack_chan_retain(copystack_chan *c) {
  if (!c)
    null_handle("copystack_chan_retain", "the channel");
  c->refs.fetch_add(1);
}

void copystack_chan_release(copystack_chan *c) {
  if (!c) // like free(NULL)
    return;
  // Whoever frees the channel comes after every holder's use of it.
  san::release(&c->refs);
  if (c->refs.fetch_sub(1) != 1)
    return;
  san::acquire(&c->refs);
  if (c->destroy)
    for (size_t i = 0; i < c->count; ++i)
      c->destroy(c->slot(i));
  g_chan_bytes -= sizeof(copystack_chan) + ring_bytes(c->elem_size,
                                                      c->capacity);
  free(c->ring);
  delete c;
}

// Go's len and cap of a nil channel are 0.
size_t copystack_chan_len(copystack_chan *c) {
  if (!c)
    return 0;
  std::lock_guard<SpinLock> g(c->lock);
  return c->count;
}

size_t copystack_chan_cap(copystack_chan *c) { return c ? c->capacity : 0; }

void *__copystack_chan_lock_of(copystack_chan *c) { return c; }

void __copystack_unlock_after_park(void *lock) {
  spin_unlock(*static_cast<std::atomic<uint32_t> *>(lock));
}

int __copystack_chan_send_begin(copystack_chan *c,
                                COPYSTACK_NOESCAPE void *elem) {
  if (!c)
    null_handle("copystack_chan_send", "the channel");
  c->lock.lock();
  if (c->closed) {
    c->lock.unlock();
    fatal("send on closed channel");
  }
  if (Waiter *w = c->recvq.pop()) {
    // A receiver is waiting: hand the element over directly.
    took(w);
    c->transfer(w->buf, elem);
    w->ok = 1;
    c->lock.unlock();
    wake(w->task);
    return 1;
  }
  if (c->count < c->capacity) {
    void *slot = c->slot(c->count);
    slot_begin(slot);
    c->transfer(slot, elem);
    slot_end(slot);
    ++c->count;
    c->lock.unlock();
    return 1;
  }
  Task *t = current_task("copystack_chan_send");
  Waiter *w = fresh_waiter(t);
  c->transfer(WaiterBuffer::acquire(t, w, c->elem_size), elem);
  c->sendq.push(w);
  set_waiting(t, kWaitChanSend);
  return park_pending(COPYSTACK_MUST_PARK); // the lock is released once it has parked
}

void __copystack_chan_send_end(void) {
  Task *t = current_task("copystack_chan_send");
  int ok = t->wait.ok;
  WaiterBuffer::release(t, &t->wait);
  if (!ok)
    fatal("send on closed channel");
}

int __copystack_chan_recv_begin(copystack_chan *c,
                                COPYSTACK_NOESCAPE void *elem) {
  if (!c)
    null_handle("copystack_chan_recv", "the channel");
  c->lock.lock();
  if (Waiter *w = c->sendq.pop()) {
    // A sender is waiting, so the buffer is full (or there is none): take
    // the oldest element and let the sender's take its place.
    took(w);
    if (c->capacity == 0) {
      c->take(elem, w->buf);
    } else {
      void *slot = c->slot(0);
      slot_begin(slot);
      c->take(elem, slot);
      c->take(slot, w->buf);
      slot_end(slot);
      c->head = (c->head + 1) % c->capacity;
    }
    w->ok = 1;
    c->lock.unlock();
    wake(w->task);
    return 1;
  }
  if (c->count > 0) {
    void *slot = c->slot(0);
    slot_begin(slot);
    c->take(elem, slot);
    slot_end(slot);
    c->head = (c->head + 1) % c->capacity;
    --c->count;
    c->lock.unlock();
    return 1;
  }
  if (c->closed) {
    san::acquire(&c->closed); // the close comes before this receive
    c->lock.unlock();
    c->zero(elem);
    return 0;
  }
  Task *t = current_task("copystack_chan_recv");
  Waiter *w = fresh_waiter(t);
  WaiterBuffer::acquire(t, w, c->elem_size);
  t->select = nullptr;
  w->obj = c; // for _end: moving the element out needs its operations
  c->recvq.push(w);
  set_waiting(t, kWaitChanRecv);
  return park_pending(COPYSTACK_MUST_PARK);
}

int __copystack_chan_recv_end(COPYSTACK_NOESCAPE void *elem) {
  Task *t = current_task("copystack_chan_recv");
  Waiter *w = &t->wait;
  auto *c = static_cast<copystack_chan *>(w->obj);
  int ok = w->ok;
  if (ok)
    c->take(elem, w->buf);
  else
    c->zero(elem);
  WaiterBuffer::release(t, w);
  return ok;
}

void copystack_chan_close(copystack_chan *c) {
  if (!c)
    fatal("copystack_chan_close: close of nil channel (the channel is "
          "null)");
  c->lock.lock();
  if (c->closed) {
    c->lock.unlock();
    fatal("close of closed channel");
  }
  san::release(&c->closed);
  c->closed = true;
  // Everyone waiting goes: receivers get nothing, senders find it closed.
  Waiter *woken = nullptr;
  for (WaitQueue *q : {&c->recvq, &c->sendq})
    while (Waiter *w = q->pop()) {
      w->ok = 0;
      w->next = woken;
      woken = w;
    }
  c->lock.unlock();
  while (Waiter *w = woken) {
    woken = w->next;
    wake(w->task);
  }
}

// ---- select ------------------------------------------------------------------

int __copystack_select_begin(COPYSTACK_NOESCAPE copystack_select_case *cases,
                             int n, int block) {
  if (n < 0 || (n > 0 && !cases))
    fatal("copystack_select: %d cases at %p: the case array is null or the "
          "count negative",
          n, static_cast<void *>(cases));
  for (int i = 0; i < n; ++i)
    if (cases[i].chan && cases[i].dir != COPYSTACK_SEND &&
        cases[i].dir != COPYSTACK_RECV)
      fatal("copystack_select: case %d's direction is %d, neither "
            "COPYSTACK_SEND nor COPYSTACK_RECV",
            i, cases[i].dir);
  // Lock every distinct channel in address order (Go's lockorder).
  copystack_chan *stack_locked[16];
  copystack_chan **locked = n <= 16 ? stack_locked
                                    : static_cast<copystack_chan **>(
                                          malloc(sizeof(copystack_chan *) * n));
  int nlocked = 0;
  for (int i = 0; i < n; ++i)
    if (cases[i].chan)
      locked[nlocked++] = cases[i].chan;
  std::sort(locked, locked + nlocked);
  nlocked = static_cast<int>(std::unique(locked, locked + nlocked) - locked);
  for (int i = 0; i < nlocked; ++i)
    locked[i]->lock.lock();

  // Poll the cases from a random start (Go's pollorder): no case starves.
  static thread_local uint32_t seed = 0x2545F491;
  seed ^= seed << 13;
  seed ^= seed >> 17;
  seed ^= seed << 5;
  int start = n ? static_cast<int>(seed % static_cast<uint32_t>(n)) : 0;
  for (int k = 0; k < n; ++k) {
    int i = (start + k) % n;
    copystack_select_case &sc = cases[i];
    copystack_chan *c = sc.chan;
    if (!c)
      continue;
    if (sc.dir == COPYSTACK_SEND) {
      if (c->closed) {
        unlock_all(locked, nlocked);
        fatal("send on closed channel (in a select)");
      }
      Waiter *w = c->recvq.pop();
      if (w || c->count < c->capacity) {
        if (w) {
          took(w);
          c->transfer(w->buf, sc.elem);
          w->ok = 1;
        } else {
          void *slot = c->slot(c->count);
          slot_begin(slot);
          c->transfer(slot, sc.elem);
          slot_end(slot);
          ++c->count;
        }
        unlock_all(locked, nlocked);
        if (locked != stack_locked)
          free(locked);
        if (w)
          wake(w->task);
        return i;
      }
    } else {
      Waiter *w = c->sendq.pop();
      if (w || c->count > 0 || c->closed) {
        sc.ok = 1;
        if (w) {
          took(w);
          if (c->capacity == 0) {
            c->take(sc.elem, w->buf);
          } else {
            void *slot = c->slot(0);
            slot_begin(slot);
            c->take(sc.elem, slot);
            c->take(slot, w->buf);
            slot_end(slot);
            c->head = (c->head + 1) % c->capacity;
          }
          w->ok = 1;
        } else if (c->count > 0) {
          void *slot = c->slot(0);
          slot_begin(slot);
          c->take(sc.elem, slot);
          slot_end(slot);
          c->head = (c->head + 1) % c->capacity;
          --c->count;
        } else {
          san::acquire(&c->closed);
          sc.ok = 0;
          c->zero(sc.elem);
        }
        unlock_all(locked, nlocked);
        if (locked != stack_locked)
          free(locked);
        if (w)
          wake(w->task);
        return i;
      }
    }
  }
  if (!block) {
    unlock_all(locked, nlocked);
    if (locked != stack_locked)
      free(locked);
    return -1;
  }
  if (nlocked == 0) {
    // select {} with nothing to wait on: park forever (the unlock finds no
    // state, and nothing will wake the task).
    Task *t = current_task("copystack_select");
    t->select = nullptr;
    set_waiting(t, kWaitSelectNoCases);
    if (locked != stack_locked)
      free(locked);
    return park_pending(COPYSTACK_SELECT_MUST_PARK);
  }
  // Enqueue a waiter on every case and park, holding all the locks.
  Task *t = current_task("copystack_select");
  auto *st = new SelectState;
  st->n = n;
  st->waiters = new Waiter[n];
  st->nlocked = nlocked;
  st->locked = new copystack_chan *[nlocked];
  std::copy(locked, locked + nlocked, st->locked);
  if (locked != stack_locked)
    free(locked);
  t->select = st;
  for (int i = 0; i < n; ++i) {
    copystack_select_case &sc = cases[i];
    Waiter *w = &st->waiters[i];
    w->task = t;
    w->index = i;
    if (!sc.chan)
      continue;
    copystack_chan *c = sc.chan;
    WaiterBuffer::acquire(t, w, c->elem_size);
    if (sc.dir == COPYSTACK_SEND) {
      c->transfer(w->buf, sc.elem);
      c->sendq.push(w);
    } else {
      c->recvq.push(w);
    }
  }
  set_waiting(t, kWaitSelect);
  return park_pending(COPYSTACK_SELECT_MUST_PARK);
}

void __copystack_select_unlock(void *) {
  Task *t = parking_task();
  SelectState *st = t->select;
  if (!st)
    return; // select {}: nothing to release, nobody will wake it
  unlock_all(st->locked, st->nlocked);
}

int __copystack_select_end(COPYSTACK_NOESCAPE copystack_select_case *cases,
                           int n) {
  Task *t = current_task("copystack_select");
  SelectState *st = t->select;
  for (int i = 0; i < st->nlocked; ++i)
    st->locked[i]->lock.lock();
  int won = st->fired.load();
  for (int i = 0; i < n; ++i) {
    Waiter *w = &st->waiters[i];
    copystack_select_case &sc = cases[i];
    if (!sc.chan)
      continue;
    copystack_chan *c = sc.chan;
    if (i != won)
      (sc.dir == COPYSTACK_SEND ? c->sendq : c->recvq).remove(w);
    if (sc.dir == COPYSTACK_SEND) {
      if (i != won) {
        // The element goes back: the case's object (moved from) takes its
        // value again.
        if (c->destroy)
          c->destroy(sc.elem);
        c->take(sc.elem, w->buf);
      }
    } else if (i == won) {
      sc.ok = w->ok;
      if (w->ok)
        c->take(sc.elem, w->buf);
      else
        c->zero(sc.elem);
    }
    WaiterBuffer::release(t, w);
  }
  unlock_all(st->locked, st->nlocked);
  bool closed_send = won >= 0 && cases[won].dir == COPYSTACK_SEND &&
                     !st->waiters[won].ok;
  delete[] st->waiters;
  delete[] st->locked;
  delete st;
  t->select = nullptr;
  if (closed_send)
    fatal("send on closed channel (in a select)");
  return won;
}

// ---- wait groups ---------------------------------------------------------------

// copystack_waitgroup: opaque[0] the lock word, opaque[1] the counter,
// opaque[2] and [3] the wait queue.
static_assert(sizeof(copystack_waitgroup) >= sizeof(uint64_t) * 2 +
                                                sizeof(WaitQueue),
              "copystack_waitgroup holds its state");

static std::atomic<uint32_t> &lock_word(void *p) {
  return *reinterpret_cast<std::atomic<uint32_t> *>(p);
}

void copystack_waitgroup_add(copystack_waitgroup *wg, int64_t delta) {
  if (!wg)
    null_handle("copystack_waitgroup_add", "the wait group");
  auto &counter = reinterpret_cast<int64_t &>(wg->opaque[1]);
  auto *q = reinterpret_cast<WaitQueue *>(&wg->opaque[2]);
  // Every Done happens before the Wait it releases returns.
  if (delta < 0)
    san::release(wg);
  spin_lock(lock_word(wg));
  counter += delta;
  if (counter < 0) {
    spin_unlock(lock_word(wg));
    fatal("negative WaitGroup counter");
  }
  Waiter *woken = nullptr;
  if (counter == 0)
    while (Waiter *w = q->pop()) {
      w->next = woken;
      woken = w;
    }
  spin_unlock(lock_word(wg));
  // The waiters learn of every Done through the one that woke them.
  if (woken)
    san::acquire(wg);
  while (Waiter *w = woken) {
    woken = w->next;
    wake(w->task);
  }
}

void copystack_waitgroup_done(copystack_waitgroup *wg) {
  if (!wg)
    null_handle("copystack_waitgroup_done", "the wait group");
  copystack_waitgroup_add(wg, -1);
}

int __copystack_waitgroup_wait_begin(copystack_waitgroup *wg) {
  if (!wg)
    null_handle("copystack_waitgroup_wait", "the wait group");
  auto &counter = reinterpret_cast<int64_t &>(wg->opaque[1]);
  auto *q = reinterpret_cast<WaitQueue *>(&wg->opaque[2]);
  spin_lock(lock_word(wg));
  if (counter == 0) {
    spin_unlock(lock_word(wg));
    san::acquire(wg);
    return 1;
  }
  return wait_on(q, "copystack_waitgroup_wait", kWaitWaitGroup);
}

// ---- mutexes -------------------------------------------------------------------

// copystack_mutex: opaque[0] the lock word, opaque[1] held, opaque[2] and
// [3] the wait queue. Unlock hands the mutex to the first waiter.
int __copystack_mutex_lock_begin(copystack_mutex *m) {
  if (!m)
    null_handle("copystack_mutex_lock", "the mutex");
  auto &held = reinterpret_cast<uint64_t &>(m->opaque[1]);
  auto *q = reinterpret_cast<WaitQueue *>(&m->opaque[2]);
  spin_lock(lock_word(m));
  if (!held) {
    held = 1;
    spin_unlock(lock_word(m));
    san::acquire(m); // the last unlock comes before this lock
    return 1;
  }
  return wait_on(q, "copystack_mutex_lock", kWaitMutex);
}

int copystack_mutex_trylock(copystack_mutex *m) {
  if (!m)
    null_handle("copystack_mutex_trylock", "the mutex");
  auto &held = reinterpret_cast<uint64_t &>(m->opaque[1]);
  spin_lock(lock_word(m));
  int got = !held;
  held = 1;
  spin_unlock(lock_word(m));
  if (got)
    san::acquire(m);
  return got;
}

void copystack_mutex_unlock(copystack_mutex *m) {
  if (!m)
    null_handle("copystack_mutex_unlock", "the mutex");
  auto &held = reinterpret_cast<uint64_t &>(m->opaque[1]);
  auto *q = reinterpret_cast<WaitQueue *>(&m->opaque[2]);
  spin_lock(lock_word(m));
  if (!held) {
    spin_unlock(lock_word(m));
    fatal("unlock of unlocked mutex");
  }
  san::release(m);
  Waiter *w = q->pop();
  if (!w)
    held = 0; // else it stays held: w's task owns it now
  spin_unlock(lock_word(m));
  if (w)
    wake(w->task); // its lock returns after this unlock
}

} // extern "C"
