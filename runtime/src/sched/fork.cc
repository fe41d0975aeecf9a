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
// __copystack_forking and then waits until no worker is inside a park
// (Thread::parking, scheduler_fork_wait_parks); a task that begins to park
// meanwhile waits, running, until the fork is over. Not inherited: tasks
// that were running on other threads at the fork (their threads are gone,
// and so are they; a channel or mutex one of them was inside at that moment
// stays locked), a task another thread preempted (it resumes only on that
// thread), and bound tasks of other threads (copystack_run, other threads'
// start routines), whose threads are gone too. Forking from a task (main is one)
// is the usual case; the child's main task carries on on the forking
// thread.
#include "platform/split_stack_notes.h"
#include "platform/runtime.h"
#include "platform/valgrind.h"
#include "core/frame_info.h"
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

#include <pthread.h>

// Nonzero while a fork is being prepared or made (forks from two threads
// at once count twice); read by __copystack_park (switch.S).
extern "C" __attribute__((visibility("hidden"))) int __copystack_forking = 0;

namespace copystack_rt {

namespace {

// Outer locks first: a collection holds the collector's lock while it
// allocates stacks and looks up frames; the deadlock check holds its own
// while it walks the task structures.
void prepare() {
  // The flag, then each worker's word (the order __copystack_park's xchg
  // makes the other way round): a park this misses waits for the fork.
  __atomic_fetch_add(&__copystack_forking, 1, __ATOMIC_SEQ_CST);
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
  __atomic_fetch_sub(&__copystack_forking, 1, __ATOMIC_SEQ_CST);
}

void in_child() {
  __atomic_store_n(&__copystack_forking, 0, __ATOMIC_RELAXED); // one thread
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
  if (is_process_runtime())
    pthread_atfork(prepare, in_parent, in_child);
}

} // namespace

} // namespace copystack_rt
