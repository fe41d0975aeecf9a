// netpoll.cc: the network poller (netpoll.h).
#include "sched/netpoll.h"
#include "platform/fatal.h"
#include "platform/once.h"
#include "platform/signals.h"
#include "platform/split_stack_notes.h"
#include "platform/stats.h"
#include "sched/trace.h"
#include "platform/thread.h"
#include "sched/scheduler.h"
#include "sched/task.h"
#include "sched/timer.h"

#include "copystack/copystack.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace copystack_rt {

namespace {

// ---- the descriptor table
// ------------------------------------------------------

// Chunks of PollDescs allocated as descriptors are first used: a program
// with 20,000 sockets holds 20 chunks of about 80 KB. 4M descriptors: the
// largest RLIMIT_NOFILE a default Linux allows (fs.nr_open is 1M).
constexpr int kChunkBits = 10;
constexpr int kChunk = 1 << kChunkBits;
constexpr int kChunks = 4096;
std::atomic<PollDesc *> g_table[kChunks];

PollDesc *find_desc(int fd) {
  if (fd < 0 || fd >= kChunks * kChunk)
    return nullptr;
  PollDesc *c = g_table[fd >> kChunkBits].load(std::memory_order_acquire);
  return c ? &c[fd & (kChunk - 1)] : nullptr;
}

// ---- the poller
// ----------------------------------------------------------------

// How long the poller may go unpolled while tasks wait and workers are busy:
// the monitor ticks every 1 ms then, and polls (Go's sysmon waits 10 ms;
// here a task a descriptor woke was 11.5 ms late on average beside one
// busy task). The tasks it finds ready ask a busy worker to yield
// (scheduler.cc wake_for_woken). An epoll_wait that returns at once, a
// thousand times a second at most, only while tasks wait.
constexpr uint64_t kPollEveryNs = 1000 * 1000;
// Events taken per epoll_wait (Go's netpoll: 128).
constexpr int kEvents = 128;
// Batches taken per poll at most (poll_once): 8,192 events.
constexpr int kPollRounds = 64;
// The epoll data of the break eventfd; a descriptor's is gen << 32 | fd.
constexpr uint64_t kBreakToken = ~uint64_t(0);

struct Poller {
  Once init;
  std::atomic<bool> ready{false};
  int epfd = -1;
  int breakfd = -1; // an eventfd: written to interrupt epoll_wait
  std::atomic<bool> break_pending{false};
  // The futex word of the idle worker that sleeps in epoll_wait, if any.
  std::atomic<std::atomic<int> *> sleeper{nullptr};
  std::atomic<uint64_t> last_poll{0};
  std::atomic<uint64_t> waiting{0}; // published waits not yet claimed
  std::atomic<uint64_t> seq{0};     // wait sequence numbers
  // Handled signals (note_signal), and the counts the last interrupt pass
  // delivered.
  std::atomic<uint32_t> sig_any{0}, sig_no_restart{0};
  std::atomic<uint32_t> done_any{0}, done_no_restart{0};
  SpinLock interrupting;
};

// Never destroyed: workers may poll while the program exits.
Poller &g = *new Poller;

// The epoll instance and the eventfd that interrupts it.
void open_epoll() {
  g.epfd = epoll_create1(EPOLL_CLOEXEC);
  if (g.epfd < 0)
    fatal("the network poller cannot create its epoll instance: %s",
          strerror(errno));
  g.breakfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (g.breakfd < 0)
    fatal("the network poller cannot create its eventfd: %s", strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kBreakToken;
  if (epoll_ctl(g.epfd, EPOLL_CTL_ADD, g.breakfd, &ev) != 0)
    fatal("the network poller cannot watch its eventfd: %s", strerror(errno));
}

void start_poller() {
  open_epoll();
  g.last_poll.store(now_ns());
  g.ready.store(true, std::memory_order_release);
  on_handled_signal(note_signal);
}

// Interrupts a blocking epoll_wait (Go's netpollBreak). Async-signal-safe.
void break_poll() {
  if (g.break_pending.exchange(true))
    return;
  uint64_t one = 1;
  ssize_t rc = write(g.breakfd, &one, sizeof one);
  (void)rc; // the counter saturates only after 2^64 - 1 writes
}

// ---- waits
// -----------------------------------------------------------------------

// IoWaits come from slabs that are never freed, so that a timer or an
// interrupt pass may look at any of them at any time; every slab is on a
// list that only grows.
constexpr int kSlab = 64;
struct Slab {
  IoWait waits[kSlab];
  Slab *next = nullptr;
};
std::atomic<Slab *> g_slabs{nullptr};
SpinLock g_free_lock;
IoWait *g_free = nullptr;

void add_slab() {
  auto *s = new Slab;
  for (int i = 0; i < kSlab; ++i) {
    s->waits[i].next_free = g_free;
    g_free = &s->waits[i];
  }
  s->next = g_slabs.load(std::memory_order_relaxed);
  g_slabs.store(s, std::memory_order_release);
}

uint8_t end_of(uint64_t state) { return static_cast<uint8_t>(state); }

// Ends w's wait with `end` if it is still waiting; true for the one caller
// that does (it then makes the task runnable).
bool claim(IoWait *w, WaitEnd end) {
  uint64_t s = w->state.load();
  while (end_of(s) == kWaiting)
    if (w->state.compare_exchange_weak(s, (s & ~uint64_t(0xff)) | end)) {
      g.waiting.fetch_sub(1);
      return true;
    }
  return false;
}

// The same, only for the wait with this sequence number (timers).
bool claim_seq(IoWait *w, uint64_t seq, WaitEnd end) {
  uint64_t s = seq << 8 | kWaiting;
  if (!w->state.compare_exchange_strong(s, seq << 8 | end))
    return false;
  g.waiting.fetch_sub(1);
  return true;
}

// Tasks made runnable, chained through Task::next (a parked task is on no
// run queue) in the order their waits ended, readied in that order once
// every lock is released.
struct Woken {
  Task *head = nullptr, *tail = nullptr;
  int n = 0;
  void add(Task *t) {
    t->next = nullptr;
    if (tail)
      tail->next = t;
    else
      head = t;
    tail = t;
    ++n;
  }
  int ready_all() {
    int count = n;
    Task *list = head;
    head = tail = nullptr;
    n = 0;
    if (list)
      ready_list(list);
    return count;
  }
};

// Tasks' futex waits, by the word's address (Go's semaphore table): a
// spin lock and a FIFO of waits per bucket.
struct FutexBucket {
  SpinLock lock;
  IoWait *head = nullptr, *tail = nullptr;
};
constexpr int kFutexBuckets = 1024;
FutexBucket g_futex[kFutexBuckets];
// Futex waits published or being published: a wake with none (the
// runtime's own futex wakes of its workers, most) looks at no bucket.
std::atomic<uint64_t> g_futex_waits{0};

FutexBucket &futex_bucket(const void *addr) {
  uint64_t a = reinterpret_cast<uintptr_t>(addr) >> 2;
  return g_futex[(a * 0x9e3779b97f4a7c15ull) >> 54];
}

void futex_link(FutexBucket &b, IoWait *w) {
  w->fqueued = true;
  w->fnext = nullptr;
  w->fprev = b.tail;
  if (b.tail)
    b.tail->fnext = w;
  else
    b.head = w;
  b.tail = w;
}

void futex_unlink(FutexBucket &b, IoWait *w) {
  if (!w->fqueued)
    return;
  w->fqueued = false;
  g_futex_waits.fetch_sub(1);
  if (w->fprev)
    w->fprev->fnext = w->fnext;
  else
    b.head = w->fnext;
  if (w->fnext)
    w->fnext->fprev = w->fprev;
  else
    b.tail = w->fprev;
  w->fnext = w->fprev = nullptr;
}

void link(PollDesc *pd, WaitRec *r) {
  r->queued = true;
  r->next = nullptr;
  r->prev = pd->tail;
  if (pd->tail)
    pd->tail->next = r;
  else
    pd->head = r;
  pd->tail = r;
}

void unlink(PollDesc *pd, WaitRec *r) {
  if (!r->queued)
    return;
  r->queued = false;
  if (r->prev)
    r->prev->next = r->next;
  else
    pd->head = r->next;
  if (r->next)
    r->next->prev = r->prev;
  else
    pd->tail = r->prev;
  r->next = r->prev = nullptr;
}

// An edge (or a close) on pd (locked): its waiters in dirs end with `end`.
void wake_waiters(PollDesc *pd, uint32_t dirs, WaitEnd end, Woken &out) {
  WaitRec *r = pd->head;
  while (r) {
    WaitRec *next = r->next;
    if (r->dirs & dirs) {
      unlink(pd, r);
      if (claim(r->wait, end))
        out.add(r->wait->task);
    }
    r = next;
  }
}

// An epoll event for descriptor fd, incarnation gen.
void on_event(int fd, uint32_t gen, uint32_t events, Woken &out) {
  PollDesc *pd = find_desc(fd);
  if (!pd)
    return;
  uint32_t dirs = 0;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLPRI | EPOLLHUP | EPOLLERR))
    dirs |= kRead;
  if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
    dirs |= kWrite;
  std::lock_guard<SpinLock> l(pd->lock);
  if (pd->gen.load() != gen)
    return; // queued before the descriptor was closed
  if (dirs & kRead)
    pd->rseq.fetch_add(1);
  if (dirs & kWrite)
    pd->wseq.fetch_add(1);
  wake_waiters(pd, dirs, kReady, out);
}

// Does a handled signal since `then` end a wait of this kind?
bool interrupts(Interrupt kind, SignalCounts then, SignalCounts now) {
  switch (kind) {
  case kNever:
    return false;
  case kUnlessRestart:
    return then.no_restart != now.no_restart;
  case kAlways:
    return then.any != now.any;
  }
  return false;
}

// Handled signals since the last pass end the waits they interrupt
// (signal(7)). Rare: a walk over every wait record is fine.
void deliver_signals(Woken &out) {
  SignalCounts now = signal_counts();
  if (now.any == g.done_any.load() &&
      now.no_restart == g.done_no_restart.load())
    return;
  if (g.interrupting.word().exchange(1, std::memory_order_acquire))
    return; // another pass runs
  g.done_any.store(now.any);
  g.done_no_restart.store(now.no_restart);
  for (Slab *s = g_slabs.load(std::memory_order_acquire); s; s = s->next)
    for (IoWait &w : s->waits) {
      uint64_t st = w.state.load();
      if (end_of(st) != kWaiting || !interrupts(w.interrupt, w.signals, now))
        continue;
      Task *t = w.task;
      if (claim_seq(&w, st >> 8, kInterrupted))
        out.add(t);
    }
  g.interrupting.unlock();
}

// Every event epoll has ready, a batch of kEvents at a time: the first
// epoll_wait blocks when timeout_ms is -1, the rest do not, and they go on
// while a batch comes back full (up to kPollRounds). Taking one batch per
// poll is not enough: epoll returns events in the order they came, and a
// descriptor registered for both directions reports itself writable once
// at once, so thousands of idle connections can queue ahead of the one
// event that matters (a listening socket's), which would then wait several
// polls, 10 ms apart when the monitor polls, while its backlog overflows.
// Makes the tasks it finds runnable (sleep_word, when a sleeping worker
// polls: set to 0 first, so that waking them does not try to wake this
// worker). Returns how many.
int poll_once(int timeout_ms, std::atomic<int> *sleep_word) {
  epoll_event evs[kEvents];
  Woken woken;
  const uint64_t traced = trace::on() ? trace::now() : 0;
  for (int round = 0; round < kPollRounds; ++round) {
    int n = epoll_wait(g.epfd, evs, kEvents, round ? 0 : timeout_ms);
    if (n < 0)
      n = 0; // EINTR: a signal, delivered below
    if (round == 0)
      g.last_poll.store(now_ns(), std::memory_order_relaxed);
    for (int i = 0; i < n; ++i) {
      uint64_t data = evs[i].data.u64;
      if (data == kBreakToken) {
        uint64_t count;
        ssize_t rc = read(g.breakfd, &count, sizeof count);
        (void)rc; // EAGAIN: someone else drained it
        g.break_pending.store(false);
        // A poll that is not the sleeper's (the monitor's, a spinning
        // worker's, which poll only while no worker sleeps in epoll_wait,
        // but one may have begun to since) can take the wake-up meant
        // for the worker that sleeps there: that worker's word is 0
        // already, so wake_one() takes it for awake, and it slept on with
        // tasks queued until an event came. Raised again for it.
        if (!sleep_word && g.sleeper.load())
          break_poll();
        continue;
      }
      on_event(static_cast<int>(data & 0xffffffffu),
               static_cast<uint32_t>(data >> 32), evs[i].events, woken);
    }
    if (n < kEvents)
      break;
  }
  deliver_signals(woken);
  if (sleep_word)
    sleep_word->store(0);
  const int n = woken.ready_all();
  if (traced && (n || timeout_ms))
    trace::slice(trace::kPoll, traced, static_cast<uint64_t>(n));
  return n;
}

void on_timer(uintptr_t wait, uint64_t seq) {
  auto *w = reinterpret_cast<IoWait *>(wait);
  uint64_t deadline = w->deadline.load();
  if (w->state.load() != (seq << 8 | kWaiting) || !deadline)
    return;
  if (now_ns() < deadline) {
    // Moved later by copystack_fd_set_deadline after this timer was set.
    add_timer(deadline, on_timer, wait, seq);
    return;
  }
  Task *t = w->task;
  if (claim_seq(w, seq, kTimedOut))
    ready(t);
}

} // namespace

// ---- descriptors
// -----------------------------------------------------------------

PollDesc *poll_desc(int fd) {
  if (fd < 0 || fd >= kChunks * kChunk)
    return nullptr;
  std::atomic<PollDesc *> &slot = g_table[fd >> kChunkBits];
  PollDesc *c = slot.load(std::memory_order_acquire);
  if (!c) {
    auto *fresh = new PollDesc[kChunk];
    if (slot.compare_exchange_strong(c, fresh, std::memory_order_acq_rel))
      c = fresh;
    else
      delete[] fresh;
  }
  return &c[fd & (kChunk - 1)];
}

bool watch_fd(PollDesc *pd, int fd) {
  if (pd->registered)
    return true;
  g.init.call(start_poller);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLPRI | EPOLLET;
  ev.data.u64 = uint64_t(pd->gen.load()) << 32 | static_cast<uint32_t>(fd);
  // EEXIST: the descriptor was closed behind the runtime's back while a
  // duplicate kept its registration alive; take it over.
  if (epoll_ctl(g.epfd, EPOLL_CTL_ADD, fd, &ev) != 0 &&
      (errno != EEXIST || epoll_ctl(g.epfd, EPOLL_CTL_MOD, fd, &ev) != 0))
    return false;
  pd->registered = true;
  return true;
}

void forget_fd(int fd) {
  PollDesc *pd = find_desc(fd);
  if (!pd)
    return;
  Woken woken;
  {
    std::lock_guard<SpinLock> l(pd->lock);
    if (!pd->registered && !pd->head && !pd->kind.load() &&
        !pd->deadline[0].load() && !pd->deadline[1].load())
      return; // never looked at since its last close
    pd->gen.fetch_add(1);
    wake_waiters(pd, kRead | kWrite, kClosed, woken);
    if (pd->registered)
      epoll_ctl(g.epfd, EPOLL_CTL_DEL, fd, nullptr);
    pd->registered = false;
    pd->accepting = false;
    pd->kind.store(0);
    pd->nowait_writes.store(0);
    pd->nonblock = 0;
    pd->timeo_known = false;
    pd->deadline[0].store(0);
    pd->deadline[1].store(0);
  }
  woken.ready_all();
}

void forget_fds(unsigned lo, unsigned hi) {
  unsigned last = kChunks * kChunk - 1u;
  if (hi > last)
    hi = last;
  for (unsigned fd = lo; fd <= hi; ++fd) {
    if (!g_table[fd >> kChunkBits].load(std::memory_order_acquire)) {
      fd |= kChunk - 1; // a chunk never used
      continue;
    }
    forget_fd(static_cast<int>(fd));
  }
}

int set_fd_deadline(int fd, int dirs, uint64_t deadline) {
  PollDesc *pd = poll_desc(fd);
  if (!pd) {
    errno = EBADF;
    return -1;
  }
  uint64_t now = now_ns();
  Woken woken;
  struct Arm {
    IoWait *w;
    uint64_t seq, at;
  } arm[16];
  int narm = 0;
  {
    std::lock_guard<SpinLock> l(pd->lock);
    if (dirs & COPYSTACK_FD_READ)
      pd->deadline[0].store(deadline);
    if (dirs & COPYSTACK_FD_WRITE)
      pd->deadline[1].store(deadline);
    for (WaitRec *r = pd->head, *next; r; r = next) {
      next = r->next;
      IoWait *w = r->wait;
      uint8_t d = w->fd_deadline_dir;
      if (!((d == kRead && (dirs & COPYSTACK_FD_READ)) ||
            (d == kWrite && (dirs & COPYSTACK_FD_WRITE))))
        continue;
      uint64_t at = w->call_deadline;
      if (deadline && (!at || deadline < at))
        at = deadline;
      w->deadline.store(at);
      if (at && at <= now) {
        unlink(pd, r);
        if (claim(w, kTimedOut))
          woken.add(w->task);
      } else if (at && narm < 16) {
        // Earlier than the timer set for it: one more. (A wait beyond the
        // sixteenth keeps its timer, whose callback finds the new time.)
        arm[narm++] = {w, w->state.load() >> 8, at};
      }
    }
  }
  for (int i = 0; i < narm; ++i)
    add_timer(arm[i].at, on_timer, reinterpret_cast<uintptr_t>(arm[i].w),
              arm[i].seq);
  woken.ready_all();
  return 0;
}

// ---- waits
// -----------------------------------------------------------------------

SignalCounts signal_counts() {
  return {g.sig_any.load(), g.sig_no_restart.load()};
}

IoWait *new_wait(int nrecs) {
  g.init.call(start_poller);
  IoWait *w;
  {
    std::lock_guard<SpinLock> l(g_free_lock);
    if (!g_free)
      add_slab();
    w = g_free;
    g_free = w->next_free;
  }
  w->next_free = nullptr;
  w->task = nullptr;
  w->job = nullptr;
  w->nrecs = nrecs;
  w->one = WaitRec{};
  if (nrecs <= 1) {
    w->recs = &w->one;
  } else {
    w->recs = new (std::nothrow) WaitRec[nrecs];
    if (!w->recs)
      fatal("out of memory for a wait on %d descriptors", nrecs);
  }
  for (int i = 0; i < nrecs; ++i)
    w->recs[i].wait = w;
  w->deadline.store(0);
  w->call_deadline = 0;
  w->fd_deadline_dir = 0;
  w->futex = nullptr;
  w->futex_val = w->futex_bits = 0;
  w->fqueued = false;
  w->handed = false;
  w->interrupt = kNever;
  w->signals = SignalCounts{};
  w->done = 0;
  w->started = 0;
  w->until = 0;
  w->kind = 0;
  return w;
}

void free_wait(IoWait *w) {
  CS_CHECK(end_of(w->state.load()) != kWaiting,
           "a wait is freed once it has ended");
  if (w->recs != &w->one)
    delete[] w->recs;
  w->recs = nullptr;
  w->state.store(w->state.load() & ~uint64_t(0xff));
  std::lock_guard<SpinLock> l(g_free_lock);
  w->next_free = g_free;
  g_free = w;
}

int finish_call(copystack_io_call *c, IoWait *w, int64_t result) {
  int saved = errno;
  if (w) {
    free_wait(w);
    c->wait = nullptr;
  }
  c->result = result;
  errno = saved;
  return 1;
}

int fail_call(copystack_io_call *c, IoWait *w, int err) {
  errno = err;
  return finish_call(c, w, -1);
}

void snapshot(WaitRec *rec, PollDesc *pd, uint32_t dirs) {
  rec->pd = pd;
  rec->dirs = dirs;
  rec->gen = pd->gen.load();
  rec->rseq = pd->rseq.load();
  rec->wseq = pd->wseq.load();
}

WaitEnd finish_wait(IoWait *w) {
  if (w->futex) { // ended by its deadline: still in its bucket
    FutexBucket &b = futex_bucket(w->futex);
    std::lock_guard<SpinLock> l(b.lock);
    futex_unlink(b, w);
  }
  for (int i = 0; i < w->nrecs; ++i) {
    WaitRec *r = &w->recs[i];
    if (!r->pd)
      continue;
    std::lock_guard<SpinLock> l(r->pd->lock);
    unlink(r->pd, r);
  }
  uint8_t end = end_of(w->state.load());
  CS_CHECK(end != kWaiting, "a task runs again only once its wait ended");
  return static_cast<WaitEnd>(end);
}

void pass_on(PollDesc *pd) {
  Woken woken;
  {
    // Counted as an edge even with nobody waiting: a task between its
    // attempt and its wait sees it when it links.
    std::lock_guard<SpinLock> l(pd->lock);
    pd->rseq.fetch_add(1);
    wake_waiters(pd, kRead, kReady, woken);
  }
  woken.ready_all();
}

int futex_wake(const void *addr, int n, uint32_t bits) {
  // The waker changed the word before: either this sees the count of a
  // wait being published, or that wait sees the new word (park_then).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (n <= 0 || g_futex_waits.load() == 0)
    return 0;
  FutexBucket &b = futex_bucket(addr);
  Woken woken;
  {
    std::lock_guard<SpinLock> l(b.lock);
    for (IoWait *w = b.head, *next; w && woken.n < n; w = next) {
      next = w->fnext;
      if (w->futex != addr || !(w->futex_bits & bits))
        continue;
      uint64_t st = w->state.load();
      futex_unlink(b, w);
      Task *t = w->task; // w is its task's again once claimed
      if (end_of(st) == kWaiting && claim_seq(w, st >> 8, kReady))
        woken.add(t);
    }
  }
  return woken.ready_all();
}

bool futex_hand_off(const void *addr, uint64_t waited_ns) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (g_futex_waits.load() == 0)
    return false; // the usual case: no clock read
  uint64_t now = now_ns();
  if (now < waited_ns)
    return false;
  const uint64_t since = now - waited_ns;
  FutexBucket &b = futex_bucket(addr);
  Task *t = nullptr;
  {
    std::lock_guard<SpinLock> l(b.lock);
    for (IoWait *w = b.head; w; w = w->fnext) {
      if (w->futex != addr)
        continue;
      uint64_t st = w->state.load();
      if (end_of(st) != kWaiting)
        continue; // its deadline passed: it unlinks itself
      if (w->started > since)
        return false; // the oldest wait has not waited that long
      if (!claim_seq(w, st >> 8, kReady))
        continue;
      futex_unlink(b, w);
      w->handed = true; // before the task runs again: readied below
      t = w->task;
      break;
    }
  }
  if (!t)
    return false;
  ready(t);
  return true;
}

void note_signal(bool restart) {
  g.sig_any.fetch_add(1);
  if (!restart)
    g.sig_no_restart.fetch_add(1);
  if (g.ready.load(std::memory_order_acquire))
    break_poll();
}

// ---- the scheduler's hooks
// ---------------------------------------------------------

bool netpoll_inject() {
  if (!g.ready.load(std::memory_order_acquire) ||
      g.waiting.load(std::memory_order_relaxed) == 0 ||
      g.sleeper.load(std::memory_order_relaxed))
    return false;
  return poll_once(0, nullptr) > 0;
}

bool netpoll_sleep(std::atomic<int> *sleep_word) {
  if (!g.ready.load(std::memory_order_acquire) || g.waiting.load() == 0)
    return false;
  std::atomic<int> *none = nullptr;
  if (!g.sleeper.compare_exchange_strong(none, sleep_word))
    return false;
  // Pairs with netpoll_wake: a waker that set the word to 0 before this
  // worker became the sleeper is seen here; one after sees the sleeper.
  if (sleep_word->load() != 1) {
    g.sleeper.store(nullptr);
    return false;
  }
  poll_once(-1, sleep_word);
  g.sleeper.store(nullptr);
  return true;
}

std::atomic<int> *netpoll_sleeper() { return g.sleeper.load(); }

bool netpoll_wake(std::atomic<int> *sleep_word) {
  if (g.sleeper.load() != sleep_word)
    return false;
  break_poll();
  return true;
}

void netpoll_monitor(uint64_t now) {
  if (!g.ready.load(std::memory_order_acquire))
    return;
  SignalCounts s = signal_counts();
  bool signals =
      s.any != g.done_any.load() || s.no_restart != g.done_no_restart.load();
  bool stale =
      g.waiting.load() && !g.sleeper.load() &&
      now - g.last_poll.load(std::memory_order_relaxed) >= kPollEveryNs;
  if (signals || stale)
    poll_once(0, nullptr);
}

uint64_t netpoll_waiting() { return g.waiting.load(); }

void netpoll_fork_lock() {
  g.init.fork_lock(); // new_wait takes it before g_free_lock
  g_free_lock.lock();
  g.interrupting.lock();
}

void netpoll_fork_unlock() {
  g.interrupting.unlock();
  g_free_lock.unlock();
  g.init.fork_unlock();
}

void futex_table_after_fork_child() {
  for (FutexBucket &b : g_futex)
    b.lock.word().store(0);
}

void netpoll_reopen_after_fork_child() {
  if (!g.ready.load(std::memory_order_acquire))
    return;
  // The parent's epoll instance stays the parent's: an edge it reports
  // would go to whichever process polls first. Before the child's new
  // workers exist: one that went to sleep in the old instance would never
  // wake.
  close(g.epfd);
  close(g.breakfd);
  open_epoll();
  g.sleeper.store(nullptr); // its thread is gone
  g.break_pending.store(false);
  g.last_poll.store(now_ns());
}

void netpoll_after_fork_child() {
  if (!g.ready.load(std::memory_order_acquire))
    return;
  Woken woken;
  for (int c = 0; c < kChunks; ++c) {
    PollDesc *chunk = g_table[c].load(std::memory_order_acquire);
    if (!chunk)
      continue;
    for (int i = 0; i < kChunk; ++i) {
      PollDesc *pd = &chunk[i];
      pd->lock.word().store(0); // a lock of a thread that is gone
      if (!pd->registered)
        continue;
      std::lock_guard<SpinLock> l(pd->lock);
      pd->registered = false;
      watch_fd(pd, c * kChunk + i);
      pd->rseq.fetch_add(1);
      pd->wseq.fetch_add(1);
      wake_waiters(pd, kRead | kWrite, kReady, woken);
    }
  }
  woken.ready_all();
}

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" {

// Runs on the worker's stack once the task that had to wait has parked
// (copystack.h, __copystack_io_run): publishes its wait, unless what it
// waits for happened meanwhile.
void __copystack_io_park_then(void *arg) {
  auto *w = static_cast<IoWait *>(arg);
  Task *task = parking_task();
  // Not a deadlock (sched/deadlock.h): the dump names the call.
  set_waiting(task, w->kind ? kWaitCall | w->kind : kWaitExternal);
  trace::note_reason(w->kind ? kWaitCall | w->kind : kWaitExternal);
  w->task = task;
  const uint64_t seq = g.seq.fetch_add(1) + 1;
  // Every descriptor's lock, in address order (two waits on overlapping
  // descriptors lock them in the same order).
  PollDesc *one[1];
  PollDesc **pds = one;
  if (w->nrecs > 1) {
    pds = new (std::nothrow) PollDesc *[w->nrecs];
    if (!pds)
      fatal("out of memory for a wait on %d descriptors", w->nrecs);
  }
  int npds = 0;
  for (int i = 0; i < w->nrecs; ++i)
    if (w->recs[i].pd)
      pds[npds++] = w->recs[i].pd;
  std::sort(pds, pds + npds);
  npds = static_cast<int>(std::unique(pds, pds + npds) - pds);
  for (int i = 0; i < npds; ++i)
    pds[i]->lock.lock();

  // A futex wait: published only if the word still holds its value, under
  // the bucket's lock, which futex_wake takes after the word changed.
  FutexBucket *fb = w->futex ? &futex_bucket(w->futex) : nullptr;
  if (fb)
    fb->lock.lock();

  WaitEnd early = kNotWaiting;
  if (fb) {
    g_futex_waits.fetch_add(1); // counted before the word is read
    if (w->futex->load() != w->futex_val)
      early = kReady;
  }
  uint64_t deadline = w->call_deadline;
  for (int i = 0; i < w->nrecs && early == kNotWaiting; ++i) {
    WaitRec *r = &w->recs[i];
    PollDesc *pd = r->pd;
    if (!pd)
      continue;
    if (pd->gen.load() != r->gen)
      early = kClosed;
    else if (((r->dirs & kRead) && pd->rseq.load() != r->rseq) ||
             ((r->dirs & kWrite) && pd->wseq.load() != r->wseq))
      early = kReady;
    if (w->fd_deadline_dir) {
      uint64_t d = pd->deadline[w->fd_deadline_dir == kRead ? 0 : 1].load();
      if (d && (!deadline || d < deadline))
        deadline = d;
    }
  }
  if (early == kNotWaiting && deadline && deadline <= now_ns())
    early = kTimedOut;
  const Interrupt interrupt = w->interrupt;
  const SignalCounts signals = w->signals;
  if (early == kNotWaiting) {
    w->deadline.store(deadline);
    for (int i = 0; i < w->nrecs; ++i)
      if (w->recs[i].pd)
        link(w->recs[i].pd, &w->recs[i]);
    if (fb)
      futex_link(*fb, w); // its count was taken above
    g.waiting.fetch_add(1);
    w->state.store(seq << 8 | kWaiting);
  }
  if (fb) {
    if (early != kNotWaiting)
      g_futex_waits.fetch_sub(1); // not published
    fb->lock.unlock();
  }
  for (int i = npds - 1; i >= 0; --i)
    pds[i]->lock.unlock();
  if (pds != one)
    delete[] pds;
  if (early != kNotWaiting) {
    w->state.store(seq << 8 | early);
    ready(task);
    return;
  }
  // Published: from here w may end, and even be reused, at any moment; only
  // the copies taken above are used.
  if (deadline)
    add_timer(deadline, on_timer, reinterpret_cast<uintptr_t>(w), seq);
  // An idle worker asleep on its futex would not see the event: the
  // monitor's poll would, up to 1 ms later (a pipe's reader beside a busy
  // task with two workers: 869 us at the p99, Go 25). One in epoll_wait
  // does at once.
  if (w->nrecs && !g.sleeper.load())
    wake_idle_for_poller();
  if (interrupts(interrupt, signals, signal_counts()) &&
      claim_seq(w, seq, kInterrupted))
    ready(task);
}

int copystack_fd_set_deadline(int fd, int dirs, uint64_t deadline_ns) {
  return set_fd_deadline(fd, dirs, deadline_ns);
}

} // extern "C"
