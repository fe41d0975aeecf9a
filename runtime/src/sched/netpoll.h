// netpoll.h: the network poller (Go's netpoll.go and netpoll_epoll.go).
//
// One epoll instance. A descriptor a task has had to wait on is registered
// once, edge-triggered for reading and writing, and stays registered until
// it is closed (Go's pollDesc, here PollDesc, kept in a table by descriptor
// number). A task that must wait (io.cc decides when) describes its wait in
// an IoWait: a record per descriptor it waits on, a deadline, which signals
// interrupt it. It parks; once its context is saved, the worker links the
// records into their descriptors' lists (__copystack_io_park_then). Whoever
// ends the wait first claims it and makes the task runnable: an epoll event
// (kReady), the timer at its deadline (kTimedOut), a close of the
// descriptor (kClosed), a handled signal (kInterrupted). The task then
// unlinks its records (finish_wait) and io.cc decides what the call returns,
// or tries again.
//
// An edge that arrives between the attempt that would have blocked and the
// linking is not lost: every descriptor counts the edges epoll reported
// (rseq, wseq), the attempt remembers the counts from before it, and the
// linking compares (Go's pdReady token, as a count).
//
// The scheduler polls when a worker runs out of work (netpoll_inject, Go's
// findrunnable), lets one idle worker sleep in epoll_wait instead of on its
// futex (netpoll_sleep, woken by netpoll_wake, and woken first when a task
// becomes runnable, so that the worker that then runs tasks also polls
// between them), and the monitor polls when nobody has for 1 ms while
// tasks wait (netpoll_monitor, Go's sysmon). A program whose tasks all
// wait on descriptors uses no CPU and no thread beyond its workers.
#ifndef COPYSTACK_NETPOLL_H
#define COPYSTACK_NETPOLL_H

#include "platform/spinlock.h"
#include "sched/task.h"

#include <atomic>
#include <cstdint>

struct copystack_io_call; // copystack/copystack.h

namespace copystack_rt {

// ---- the scheduler's hooks
// ---------------------------------------------------

// A worker found nothing to run: polls without blocking, unless no task
// waits or an idle worker sleeps in epoll_wait (it gets the events). The
// tasks it makes runnable go to this worker. Returns whether there were any.
bool netpoll_inject();

// An idle worker about to sleep on its futex word (1 while it may sleep):
// if tasks wait on the poller and no other worker sleeps in epoll_wait, it
// sleeps there instead, until an event, a signal or netpoll_wake(word).
// Returns false if it did not sleep (the caller then waits on the futex).
bool netpoll_sleep(std::atomic<int> *sleep_word);

// A waker has set this idle worker's word to 0: if the worker sleeps in
// epoll_wait, interrupts it and returns true.
bool netpoll_wake(std::atomic<int> *sleep_word);

// The futex word of the idle worker sleeping in epoll_wait, if any.
std::atomic<int> *netpoll_sleeper();

// The monitor's tick (Go's sysmon): polls if nobody has for 10 ms, and
// delivers handled signals to waiting tasks.
void netpoll_monitor(uint64_t now);

// Tasks waiting on the poller or on a blocking call's timer: not asleep, as
// far as deadlock detection is concerned (something outside may wake them).
uint64_t netpoll_waiting();

// fork() (sched/fork.cc): the poller's locks around it; in the child, an
// epoll instance of its own (the parent's is shared through the inherited
// descriptor), every watched descriptor registered in it again, and every
// wait ended as if an edge had come: the task retries its call, and parks
// again if it would still block. A descriptor's wait list that another
// thread was changing at the moment of the fork may lose that change.
void netpoll_fork_lock();
void netpoll_fork_unlock();
// In the child, first of all: the futex table's bucket locks, which are
// not taken before a fork (the runtime's own mutexes go through
// pthread_sync.cc, whose unlocks look at the table: the locks released
// after the fork would have waited for buckets the fork held), are
// released in case another thread held one (its list may then miss that
// thread's change, as a descriptor's can).
void futex_table_after_fork_child();
// In the child, before its new threads start: the new epoll instance.
void netpoll_reopen_after_fork_child();
// Once the scheduler runs again: the descriptors registered, the waits
// ended.
void netpoll_after_fork_child();

// ---- descriptors
// -------------------------------------------------------------

// Directions of readiness.
constexpr uint32_t kRead = 1, kWrite = 2;

struct WaitRec;

// The poller's and io.cc's knowledge of one descriptor number, for its
// current incarnation (gen): from the first time a task waits on it until
// it is closed through the runtime's close() (io.cc forgets it). The lock
// guards the waiters' list and the caches; gen, the edge counts and the
// deadlines change under it and are read without it.
struct PollDesc {
  SpinLock lock;
  std::atomic<uint32_t> gen{0};  // bumped when the descriptor is closed
  std::atomic<uint32_t> rseq{0}; // read edges epoll reported
  std::atomic<uint32_t> wseq{0}; // write edges
  bool registered = false;       // in the epoll set
  // io.cc's cache, valid for this incarnation.
  bool accepting = false;       // a task is in poll-then-accept
  std::atomic<uint8_t> kind{0}; // io.cc's FdKind; 0: not looked at
  // A regular file's RWF_NOWAIT writes (io_pool.cc): 0 not tried, 1 the
  // file system refuses them (EOPNOTSUPP), 2 it honours them.
  std::atomic<uint8_t> nowait_writes{0};
  uint8_t nonblock = 0;         // O_NONBLOCK: 0 unknown, 1 no, 2 yes
  uint32_t flags_epoch = 0;     // when nonblock was read
  uint32_t timeo_epoch = 0;     // when the timeouts were read
  bool timeo_known = false;
  uint64_t rcvtimeo = 0, sndtimeo = 0; // SO_RCVTIMEO, SO_SNDTIMEO (ns)
  // copystack_fd_set_deadline: read, write (0: none).
  std::atomic<uint64_t> deadline[2] = {0, 0};
  WaitRec *head = nullptr, *tail = nullptr; // the records of waiting tasks
};

// The descriptor's PollDesc, created on first use; null when fd is outside
// the table (negative, or beyond 4M).
PollDesc *poll_desc(int fd);

// Adds fd to the epoll set if it is not there (pd locked). False when epoll
// refuses it (regular files, directories).
bool watch_fd(PollDesc *pd, int fd);

// fd is about to be closed (or replaced by dup2): its waiters end with
// kClosed, it leaves the epoll set, and everything cached about it is
// forgotten. Cheap when the runtime never looked at fd.
void forget_fd(int fd);
// The same for every descriptor from lo to hi (close_range).
void forget_fds(unsigned lo, unsigned hi);

// copystack_fd_set_deadline.
int set_fd_deadline(int fd, int dirs, uint64_t deadline);

// ---- waits
// -------------------------------------------------------------------

// How a wait ended (the low byte of IoWait::state).
enum WaitEnd : uint8_t {
  kNotWaiting = 0,
  kWaiting = 1,
  kReady = 2,       // an edge on one of its descriptors: try again
  kTimedOut = 3,    // its deadline passed
  kClosed = 4,      // one of its descriptors was closed
  kInterrupted = 5, // a handled signal (EINTR)
};

// Which handled signals end a wait with EINTR (signal(7): the calls
// SA_RESTART restarts, and those it never does).
enum Interrupt : uint8_t {
  kNever = 0,
  kUnlessRestart = 1, // by handlers installed without SA_RESTART
  kAlways = 2,
};

// One descriptor a wait is on.
struct WaitRec {
  struct IoWait *wait = nullptr;
  PollDesc *pd = nullptr;
  WaitRec *next = nullptr, *prev = nullptr;
  uint32_t gen = 0;            // the incarnation it waits on
  uint32_t dirs = 0;           // kRead, kWrite
  uint32_t rseq = 0, wseq = 0; // the edges seen before the attempt
  bool queued = false;         // in pd's list
};

// The counts of handled signals, for the interrupt check.
struct SignalCounts {
  uint32_t any = 0, no_restart = 0;
};
SignalCounts signal_counts();

// One blocking call's wait, from its first park until it returns (io.cc
// keeps it in copystack_io_call::wait). Pooled, never freed: a timer that
// fires late finds a sequence number that is no longer its own.
struct IoWait {
  std::atomic<uint64_t> state{0}; // sequence << 8 | WaitEnd
  Task *task = nullptr;
  int nrecs = 0;
  WaitRec *recs = nullptr; // &one, or an array for poll and select
  WaitRec one;
  std::atomic<uint64_t> deadline{0}; // when the wait times out (0: never)
  uint64_t call_deadline = 0;        // the call's own (timeout argument,
                                     // SO_RCVTIMEO...), before fd deadlines
  uint8_t fd_deadline_dir = 0;       // kRead/kWrite: fd deadlines apply
  Interrupt interrupt = kNever;
  SignalCounts signals; // when the attempt before the wait began
  // io.cc's progress through the call, kept across parks.
  uint64_t done = 0;    // bytes already transferred
  uint64_t started = 0; // when it first had to wait
  uint64_t until = 0;   // a polling call's own deadline (a timed join)
  IoWait *next_free = nullptr;
  // A futex wait (io.cc's futex_call): the word, the value it must still
  // hold when the wait is published, the FUTEX_WAIT_BITSET bits, and the
  // links of its bucket's list (netpoll.cc, futex_wake).
  const std::atomic<uint32_t> *futex = nullptr;
  uint32_t futex_val = 0, futex_bits = 0;
  IoWait *fnext = nullptr, *fprev = nullptr;
  bool fqueued = false;
  bool handed = false; // ended by futex_hand_off
  void *job = nullptr;  // a call on an I/O thread (io_pool.cc)
  uint8_t kind = 0;     // the call's copystack_io_kind, for the task dump,
                        // with kWaitOnIoThread when an I/O thread makes it
};

// A wait with room for nrecs records (recs points at them, zeroed).
IoWait *new_wait(int nrecs);
void free_wait(IoWait *w);

// The end of a call (io.cc and what it hands calls to): its wait, if it
// had one, freed (errno kept), and result stored. Returns 1, what
// __copystack_io_begin returns for a call that is done.
int finish_call(copystack_io_call *c, IoWait *w, int64_t result);
// The same with result -1 and errno err.
int fail_call(copystack_io_call *c, IoWait *w, int err);

// Fills rec for a wait on pd in dirs: the incarnation and the edges now.
// Call before the attempt that may find the descriptor not ready.
void snapshot(WaitRec *rec, PollDesc *pd, uint32_t dirs);

// After the task resumed: unlinks its records and says how the wait ended.
WaitEnd finish_wait(IoWait *w);

// The end of a poll-then-act attempt (io.cc's accept): the act succeeded,
// so tasks waiting to read pd may find more; they try again.
void pass_on(PollDesc *pd);

// Futex waits of tasks (Linux's FUTEX_WAIT on a word, emulated for tasks,
// which park): ends up to n waits on addr whose bits meet bits (as
// FUTEX_WAKE_BITSET; FUTEX_WAKE's are all ones), in the order they began.
// Returns how many. Plain threads' waits are the kernel's: the caller
// wakes those with the system call too.
int futex_wake(const void *addr, int n, uint32_t bits);

// Ends the oldest task's wait on addr if it has lasted waited_ns or more,
// marking it handed (IoWait::handed): the waker passes that task what the
// word guards (pthread_sync.cc: a mutex, kept held). False if there is no
// such wait (without reading the clock when no task waits on any word).
bool futex_hand_off(const void *addr, uint64_t waited_ns);

// From the signal trampoline (async-signal-safe): a handler ran.
void note_signal(bool restart);

} // namespace copystack_rt

#endif
