// scheduler.h: the M:N scheduler (Go's proc.go, much reduced).
//
// N worker threads (copystack_workers) run tasks. Each worker has a
// lock-free run queue of 256 tasks (Go's runq: the owner pushes and pops,
// others steal half) and a runnext slot: a task a worker wakes runs next on
// that worker, so a ping-pong between two tasks stays on one thread. Two
// shared queues: the global one takes what does not fit and what is spawned
// or yields outside a worker's queue; the woken one what the poller, the
// timers and threads outside the scheduler make runnable, so that a task an
// event woke does not wait behind thousands of spawned ones. A worker
// serves each shared queue now and then, and refills its empty queue from
// them in turn. An idle worker looks everywhere, registers as
// idle, looks again (so that a task made runnable meanwhile is not missed),
// and sleeps on a futex until woken; there is no busy spinning.
//
// A task blocks by parking (Go's gopark): the blocking primitive registers
// the task as a waiter while holding its lock, the task calls
// __copystack_park(then, arg) on its own stack, and the worker runs
// then(arg) (typically: release that lock) after the task's context is
// saved. Whoever takes the waiter off the primitive calls ready(task).
//
// A task started by copystack_run is bound to the thread that called it: it
// runs there and nowhere else, and ready() hands it back to that thread.
// The program's main task is not: as in Go, it is an ordinary task, and the
// main thread becomes a worker, worker 0, which runs main first. The other
// workers and the monitor start when main first spawns or parks
// (start_rest in scheduler.cc): until then the program is one thread.
//
// A monitor thread (Go's sysmon) watches for workers stuck in a foreign
// call and starts another worker while one is, so that a task blocked in
// read(2) does not stall the tasks queued behind it: the spare takes over the
// stuck worker's queue and runnext, in their order.
#ifndef COPYSTACK_SCHEDULER_H
#define COPYSTACK_SCHEDULER_H

#include "sched/task.h"
#include "platform/thread.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace copystack_rt {

// Makes a parked task runnable. From any thread, inside or outside the
// scheduler, with or without runtime locks held. On a worker, t runs next
// there (a task that wakes another hands it the worker).
void ready(Task *t);

// Makes a list of parked tasks (chained through Task::next) runnable in its
// order, behind the tasks already queued: the poller's batches, so that
// connections are served in the order their events came, none jumping
// ahead through runnext. From any thread, with no runtime lock held.
void ready_list(Task *head);

// The task that is parking, while its then() runs; null otherwise.
Task *parking_task();

// The preemption signal's buffers of a worker (sched/preempt_signal.h).
struct SignalBuffers;
SignalBuffers *worker_signal_buffers(Worker *w);
// For the task dump: whether t is running on a worker's thread in a
// foreign call now (a call that may block the worker: the monitor hands
// its other tasks to a spare), and if so the instrumented function that
// made it (*caller: its return address into it, 0 if not found). Racy by
// nature: the call may return as it is read.
bool in_foreign_call(const Task *t, uintptr_t *caller);

// The scheduler slot of the worker the calling thread is, or -1.
int current_worker_slot();

// Starts the scheduler's workers if they are not running.
void start_scheduler();

// A task began to wait on the poller and no worker sleeps in epoll_wait:
// wakes an idle worker, if any, to sleep there instead of on its futex
// (netpoll.cc). Otherwise the event waits for the monitor's poll.
void wake_idle_for_poller();

// Enqueues a new task. The scheduler starts if needed.
void spawn(Task *t);

// Live tasks (Go's NumGoroutine).
uint64_t live_tasks();

// Tasks ever put in the shared queues (the global queue and the woken
// one), and taken from them: a preempted task waits for the ones queued
// before it (preempt.h), those a timer, the poller or another thread woke
// included.
uint64_t shared_queue_puts();
uint64_t shared_queue_takes();

// fork(): the shared queues' locks, before it and after it; in the child,
// the forking thread is the only one left: new threads take the other
// workers' places and the monitor's (sched/fork.cc).
// Before them, once the fork's flag is up (fork.cc): waits until no worker
// is in the middle of a task's park (Thread::park_fn).
void scheduler_fork_wait_parks();
void scheduler_fork_lock();
void scheduler_fork_unlock();
void scheduler_after_fork_child();

// Every worker idle with nothing queued, no retired worker still running,
// no bound task running (the deadlock check, deadlock.h).
bool scheduler_quiet();

// A thread that runs one bound task (copystack_run, a thread's start
// routine): the task runs there and nowhere else, and the thread waits on
// this while the task is parked.
struct Runner {
  std::mutex lock;
  std::condition_variable cv;
  bool runnable = false;
};

// A bound task's run: what it changed on the calling thread, put back when
// it ends.
struct BoundRun {
  Runner runner;
  Thread saved{};
  uintptr_t saved_limit = 0;
};

// Runs t bound to the calling thread until it finishes (copystack_run).
void run_bound(Task *t);
void run_bound(Task *t, BoundRun &b);

// After pthread_exit or a cancellation unwound t's frames and glibc jumped
// back to a frame of the thread's own (thread_tasks.cc): puts the thread
// back as run_bound(t, b) would have on return, and destroys t.
void abandon_bound(Task *t, BoundRun &b);

// Whether t runs on the calling thread: its current task, or one whose
// run a bound run on this thread interrupted (copystack_run from a task).
bool runs_on_this_thread(const Task *t);

// Runs the program's main task t on the scheduler, with the calling thread
// as one of the workers (Go's M0), and exits with its result when it
// returns.
[[noreturn]] void run_main(Task *t);

} // namespace copystack_rt

#endif
