// deadlock.h: Go's checkdead. When every task waits on a task primitive
// (channel, select, wait group, mutex) and nothing could end a wait, the
// program stops: "fatal error: all tasks are asleep - deadlock!", the task
// dump, exit status 2.
//
// The rule (a false report is worse than a missed one, so every doubt
// means "not a deadlock"): the program is deadlocked when, at one moment,
//   - every live task is suspended and waiting on a task primitive
//     (waits_on_tasks, task.h): none runs, none is runnable, none sleeps,
//     none is in a foreign call or a system call, none waits on an external
//     event (external_wait_begin: the network poller's file descriptors);
//   - no timer is pending (a sleeping task or a copystack_after channel
//     will wake somebody);
//   - every worker is idle with nothing queued, and no bound task
//     (copystack_run, a thread's start routine) is running;
//   - every thread of the process is one the runtime accounts for
//     (RuntimeThread: workers, the monitor, the timer thread, threads
//     running or waiting for a bound task). Any other thread, which may be
//     the program's main thread outside tasks, a thread started with
//     COPYSTACK_THREADS=0 or a library's, could still close a channel or
//     unlock a mutex: while one exists, nothing is reported. The threads a
//     sanitizer runs for itself are allowed for (san::internal_threads:
//     TSan's background thread).
// The check holds every suspended task while it looks (task.h hold_task),
// so what it sees is one moment: a task it holds cannot run, and the other
// conditions are read again after the tasks are held.
//
// It runs where a wait may have become the last: when a worker is about
// to sleep, when a bound task's thread starts waiting, and every 10 ms in
// the monitor while all workers are idle (a thread outside tasks may end,
// a timer may fire into nothing).
#ifndef COPYSTACK_DEADLOCK_H
#define COPYSTACK_DEADLOCK_H

#include <cstdint>

namespace copystack_rt {

// Counts the calling thread as one of the runtime's while it lives (see the
// rule above); nests: a thread is counted once.
class RuntimeThread {
public:
  RuntimeThread();
  ~RuntimeThread();
  RuntimeThread(const RuntimeThread &) = delete;
  RuntimeThread &operator=(const RuntimeThread &) = delete;
};

// For a poller: tasks waiting on something outside the runtime (a file
// descriptor). While any does, the program is not deadlocked. Call begin
// before the task's wait is visible to whoever ends it, end after it is
// runnable again.
void external_wait_begin();
void external_wait_end();

// Timers added and not fired to the end (timer.cc).
uint64_t timers_pending();

// fork(): the check and the timers, before it and after it; in the child,
// only the forking thread is left (sched/fork.cc).
void deadlock_fork_lock();
void deadlock_fork_unlock();
void deadlock_after_fork_child();
void timers_fork_lock();
void timers_fork_unlock();
void timers_after_fork_child();
// Before the fork takes any lock: the timer thread takes no timer from
// the heap until timers_fork_resume (in the parent; the child's timer
// thread is new), and the timer it is firing, if any, has been fired to
// the end (timer.cc).
void timers_fork_pause();
void timers_fork_resume();

// Looks, and stops the program if it is deadlocked. From any thread that is
// not running a task.
void check_deadlock();

} // namespace copystack_rt

#endif
