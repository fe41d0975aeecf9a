// fork.cc: fork() in a program whose tasks are running.
//
// Only the forking thread exists in the child. A runtime lock another
// thread held at the moment of the fork would stay held there forever (the
// child used to hang in 5-12% of runs, spinning on the global queue's
// lock), so every runtime-wide lock is taken before the fork, in the order
// the runtime nests them, and released after it in both processes
// (pthread_atfork). In the child the scheduler then gets new threads for
// the other workers, the monitor and the timer thread, and the child goes
// on using tasks.
//
// What the child inherits: every task that was parked, sleeping or
// runnable (it runs in the child as in the parent), channels, wait groups,
// mutexes, timers and settings; tasks waiting on descriptors go on waiting
// on the child's own epoll instance (netpoll.h). A task that had begun to
// park on another worker is one of them: its park is in two halves, the
// task's (__copystack_park saves its context) and the worker's (execute()
// then publishes the wait: links it into a futex bucket, hands a call to
// an I/O thread, queues it; in stress mode after moving its stack), and a
// fork between the two halves used to leave the child with a task nobody
// could wake (a child waiting for it hung). So the fork raises
// __copystack_fork_words[0] and then waits until no worker is inside a park
// (Thread::park_fn, scheduler_fork_wait_parks), nor between a _begin entry
// point that will park and its park (park_pending; it holds the lock the
// park releases); a task that begins to park meanwhile waits, running,
// until the fork is over. Not yet closed: a _begin entry point that
// announces its park (park_pending) after the fork read that worker's
// park_fn does not look at the flag, and __copystack_park lets an
// announced park through, so such a park can still straddle the fork
// (the child would keep the lock its then() releases). Closing it needs
// the announcement made, and the flag read, before the lock is taken.
// Not inherited: tasks
// that were running on other threads at the fork (their threads are gone,
// and so are they; a channel or mutex one of them was inside at that moment
// stays locked), a task another thread preempted (it resumes only on that
// thread), and bound tasks of other threads (copystack_run, other threads'
// start routines), whose threads are gone too: as with threads, a child
// that waits for one of them waits forever. The child marks them lost
// (kLost): the deadlock check counts them as asleep, so that such a wait
// ends in "all tasks are asleep - deadlock!" and a dump that names them,
// not in a silent hang. Forking from a task (main is one)
// is the usual case; the child's main task carries on on the forking
// thread.
#include "platform/fatal.h"
#include "platform/split_stack_notes.h"
#include "platform/runtime.h"
#include "platform/valgrind.h"
#include "core/frame_info.h"
#include "core/shrink.h"
#include "sched/preempt.h"
#include "core/stack_alloc.h"
#include "sched/collect.h"
#include "sched/deadlock.h"
#include "sched/netpoll.h"
#include "sched/io_pool.h"
#include "sched/pthread_sync.h"
#include "sched/scheduler.h"
#include "sched/task.h"
#include "sched/profile.h"
#include "sched/trace.h"

#include <cerrno>
#include <cstring>
#include <linux/membarrier.h>
#include <new>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

// Read by __copystack_park (switch.S): [0] nonzero while a fork is being
// prepared or made (forks from two threads at once count twice); [1] 1
// unless membarrier(2) serves the fork (register_fork_handlers), when the
// park itself must fence between its word's store and [0]'s load. A park
// pays a plain store and two loads, not a locked instruction (which cost
// 40 ns on this project's machine).
extern "C" __attribute__((visibility("hidden"))) int __copystack_fork_words[2] =
    {0, 1};

namespace copystack_rt {

namespace {

// membarrier(2) registered: a fork's prepare makes every thread fence.
bool g_membarrier = false;

// Outer locks first: a collection holds the collector's lock while it
// allocates stacks and looks up frames; the deadlock check holds its own
// while it walks the task structures.
void prepare() {
  timers_fork_pause();
  // The flag, a full barrier on every thread, then each worker's park_fn
  // (__copystack_park stores it, then reads the flag): a park this misses
  // sees the flag and waits for the fork.
  __atomic_fetch_add(&__copystack_fork_words[0], 1, __ATOMIC_SEQ_CST);
  if (g_membarrier &&
      syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
    fatal("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after it "
          "was registered: %s", strerror(errno));
  scheduler_fork_wait_parks();
  collect_fork_lock();
  deadlock_fork_lock();
  task_fork_lock();
  timers_fork_lock();
  netpoll_fork_lock();
  io_pool_fork_lock();
  scheduler_fork_lock();
  frame_info_fork_lock();
  stack_alloc_fork_lock();
  vg::fork_lock();
}

void release() {
  vg::fork_unlock();
  stack_alloc_fork_unlock();
  frame_info_fork_unlock();
  scheduler_fork_unlock();
  io_pool_fork_unlock();
  netpoll_fork_unlock();
  timers_fork_unlock();
  task_fork_unlock();
  deadlock_fork_unlock();
  collect_fork_unlock();
}

void in_parent() {
  release();
  __atomic_fetch_sub(&__copystack_fork_words[0], 1, __ATOMIC_SEQ_CST);
  timers_fork_resume();
}

// In the child: whether t was on a thread the child does not have.
void mark_if_lost(Task *t, void *) {
  uint8_t s = t->state.load(std::memory_order_relaxed);
  bool lost = s == kRunning
                  ? !runs_on_this_thread(t)
                  : s == kSuspended &&
                        (t->runner != nullptr ||
                         (task_preempted(t) && !preempted_here(t)));
  if (!lost)
    return;
  t->state.store(kLost, std::memory_order_relaxed);
  // A lost bound task may still be woken (ready() takes its runner's
  // lock): the runner lives on a thread that is gone, whose lock may have
  // been held at the fork. Made anew, it takes the wake; nothing waits.
  if (Runner *r = t->runner) {
    new (&r->lock) std::mutex;
    new (&r->cv) std::condition_variable;
  }
}

void in_child() {
  __atomic_store_n(&__copystack_fork_words[0], 0, __ATOMIC_RELAXED); // alone
  for_each_task(mark_if_lost, nullptr);
  trace::after_fork_child();
  profile::after_fork_child();
  futex_table_after_fork_child(); // before release(): its unlocks use it
  release();
  pthread_sync_after_fork_child();
  deadlock_after_fork_child();
  netpoll_reopen_after_fork_child();
  scheduler_after_fork_child();
  timers_after_fork_child();
  netpoll_after_fork_child();
  io_pool_after_fork_child();
}

__attribute__((constructor)) void register_fork_handlers() {
  if (!is_process_runtime())
    return;
  // Linux 4.14 and later; not under valgrind, nor where a seccomp filter
  // refuses it: then every park fences.
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0,
              0) == 0) {
    g_membarrier = true;
    __atomic_store_n(&__copystack_fork_words[1], 0, __ATOMIC_RELEASE);
  }
  pthread_atfork(prepare, in_parent, in_child);
}

} // namespace

} // namespace copystack_rt
