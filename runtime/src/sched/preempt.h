// preempt.h: preemption (Go's sysmon retake, and its stackPreempt).
//
// The monitor watches every worker: one that has run the same task for a
// time slice (10 ms, Go's forcePreemptNS) while the task runs its own code
// gets COPYSTACK_PREEMPT_LIMIT (abi.h) in its thread's split-stack limit,
// written by the monitor with a compare-and-swap against the value there
// (0 while the thread is in a foreign call or the runtime: left alone; the
// request is also noted in Thread::preempt_seq, which the call's return to
// the task honours by yielding there, or where it cannot, switch.S, by
// putting that value back instead of the task's limit, as does the next
// growth: a task that spends its time in foreign calls or the runtime, a
// loop that spawns, is preempted as well). With it the monitor sends the
// preemption signal (preempt_signal.h), which stops the task at any
// instruction of its own code. The task's next
// prologue check fails and __morestack, seeing that value, calls
// __copystack_preempt before it returns into the function; a loop
// whose iterations run no prologue check polls the limit at its back edge
// (passes/LoopPolls.cpp) and calls __copystack_preempt itself. The stub
// (switch.S) parks the task, keeping its errno, and the worker puts it on
// this thread's list of preempted tasks. It runs again after the thread's
// local run queue and after the tasks that were in the shared queues when
// it stopped (Go puts a preempted goroutine at the global queue's tail):
// a task that spawns in a loop lets the tasks it spawned run and end,
// instead of piling them up, and a task a timer, the poller or another
// thread woke (the woken queue) runs within a time slice of its wake-up,
// however many tasks are busy (before the woken queue counted, a 10 ms
// sleep beside one busy task on one worker overslept 342 ms on average). Before the tasks queued after it, and before stealing
// (preempted_take); and, so that a worker whose own queue never empties
// does not starve it, first on every 30th look once its turn has come.
//
// A preempted task resumes on the thread it stopped on, and its stack does
// not move until it does (core/shrink.cc looks for the stub's return
// address, __copystack_preempt_resume, in its switch frame): neither
// place it stops at is a safepoint. A loop poll has no frame map entry, and
// the values live across it may point into the stack; a prologue has no
// frame yet. And the code around either may hold the thread's identity (a
// thread_local's address, errno's location) in registers: the compiler
// placed no call there that could move the task to another thread.
#ifndef COPYSTACK_PREEMPT_H
#define COPYSTACK_PREEMPT_H

#include "platform/thread.h"
#include "sched/task.h"

#include <cstdint>

namespace copystack_rt {

// The monitor's look at the worker in slot `slot`, whose thread is th.
void preempt_watch(int slot, Thread *th, uint64_t now);

// Asks the task th runs now to yield at its next check or poll, whatever
// its time: a task a timer or the poller woke found every worker busy
// (scheduler.cc ready()), and runs as soon as one yields. False if th runs
// no task it could ask (in its scheduler, the runtime or a foreign call).
// A request already standing gets the signal (preempt_signal.h) again,
// at most every 50 us unless again (a retired worker's thread, asked on
// every tick; the workers' slots get it from preempt_watch every tick).
bool preempt_now(Thread *th, bool again = false);

// The next task preempted on the calling thread (first in, first out), or
// null: only once the shared queues have handed out the tasks they held
// when that one stopped, unless any.
Task *preempted_take(bool any);

// Whether tasks preempted on the calling thread wait to resume there
// (io.cc blocking(): a call that would block the thread in place goes to
// an I/O thread then, io_pool.h pool_hop).
bool preempted_waiting();

// Whether t waits on the calling thread's list of preempted tasks.
bool preempted_here(const Task *t);

// Before t runs again on this thread (scheduler.cc execute()): if it was
// preempted, the thread-local words it stopped with (preempt.cc,
// save_once_tls) are put back.
void resume_preempted(Task *t);

// libstdc++'s std::call_once words of the calling thread, saved and put
// back (preempt.cc); and the queueing of a preempted task, after its
// park (__copystack_preempt_then, __copystack_signal_then).
void save_once_tls(void *out[2]);
void load_once_tls(void *const in[2]);
void keep_preempted(Task *t);

} // namespace copystack_rt

#endif
