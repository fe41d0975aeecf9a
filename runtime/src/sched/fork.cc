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
// on the child's own epoll instance (netpoll.h). Not inherited: tasks that
// were running on other threads at the fork (their threads are gone, and so
// are they; a channel or mutex one of them was inside at that moment stays
// locked), a task another thread preempted (it resumes only on that
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

namespace copystack_rt {

namespace {

// Outer locks first: a collection holds the collector's lock while it
// allocates stacks and looks up frames; the deadlock check holds its own
// while it walks the task structures.
void prepare() {
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

void in_child() {
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
    pthread_atfork(prepare, release, in_child);
}

} // namespace

} // namespace copystack_rt
