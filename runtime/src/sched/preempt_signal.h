// preempt_signal.h: asynchronous preemption (Go 1.14's, by a signal).
//
// The monitor asks a task to yield by its thread's split-stack limit
// (preempt.h); code that reaches no check or poll for a time slice (a loop
// that calls nothing: the drivers' default builds no polls) would never
// see it.
// So the monitor also sends the worker's thread SIGURG (as Go does: its
// default action is to ignore it, and few programs use it). The handler
// stops the task at the instruction it interrupted when all of these hold:
//   - the signal is the runtime's (rt_tgsigqueueinfo with the runtime's
//     value), and the request stands: the thread's limit is
//     COPYSTACK_PREEMPT_LIMIT, which the monitor stores only while the
//     task runs its own code (not a foreign call, the runtime or a
//     program's signal handler: there it is 0) and which every new run
//     replaces;
//   - %rsp is on the task's stack, with the room the stop needs below the
//     interrupted code's red zone (144 bytes; the guard band's budget
//     leaves at least 280 there, docs/abi.md);
//   - the pc is in an instrumented function (its unwind tables' FDE begins
//     at a copystack prefix, found with _dl_find_object: no lock): never
//     in the C library's code running in place, which may hold a lock
//     another task on the thread would take, nor in the runtime.
// It copies the interrupted context (the kernel's ucontext and the whole
// XSAVE area) into a buffer of the worker's, and returns into
// __copystack_signal_preempt (switch.S) below the red zone, which parks
// the task like a poll's preemption: the task resumes on the same thread,
// its stack neither moved nor compacted in between (preempt.h), and
// __copystack_signal_restore puts back every register, the vector state,
// the flags and the signal mask at once with rt_sigreturn, and the
// pinned area's argument word (the only thread-local word instrumented
// code sets and reads across two instructions). The stub itself runs with
// the interrupted code's x87 register stack emptied (the ABI's state at a
// call: the scheduler and the tasks it runs next use that stack too).
// Otherwise the signal is dropped; where the task was only away in a call
// of the C library in place (a vDSO clock read, a string function), a
// timer of the worker's signals again 20 us later, up to 50 times, and
// otherwise the monitor does a tick (1 ms) later: the limit still asks
// meanwhile.
//
// Not under ThreadSanitizer (it delays signals to its own safe points and
// hands the handler a copy of the context) or valgrind (which emulates
// rt_sigreturn only for its own frames), nor with COPYSTACK_PREEMPT_SIGNAL=0:
// then only checks and polls preempt.
#ifndef COPYSTACK_PREEMPT_SIGNAL_H
#define COPYSTACK_PREEMPT_SIGNAL_H

#include "platform/thread.h"

#include <atomic>
#include <cstdint>

namespace copystack_rt {

// A worker's buffers for stopped contexts (preempt_signal.cc): the one the
// handler fills next, the one it filled until the task has parked, those
// of the tasks stopped on this thread until they resume here, and spares.
struct SignalContext;
struct SignalBuffers {
  SignalContext *ready = nullptr;
  SignalContext *taken = nullptr;
  SignalContext *stopped = nullptr;
  SignalContext *spare = nullptr;
  // When the signal was last sent to the worker's thread (now_ns).
  std::atomic<uint64_t> sent_ns{0};
  // A one-shot timer that signals the thread again shortly after the
  // handler found the task in the C library in place (timer_tid: the
  // thread it was made for; another after fork), and the retries left.
  void *timer = nullptr;
  int timer_tid = 0;
  int retries = 0;
};

// Installs the handler, once; false if signals are off (the reasons
// above).
bool preempt_signal_start();

// The calling worker thread's id, and a buffer in its worker's, made
// before it runs a task (the handler cannot allocate); starts the signal
// first.
void preempt_signal_prepare_thread();

// Sends th's thread the signal (preempt.cc), unless signals are off, the
// thread's id is not known yet, or it was sent less than min_gap_ns ago.
void preempt_signal_send(Thread *th, uint64_t min_gap_ns = 0);

// Before t, which the signal stopped, runs again on this thread: the
// thread-local words it stopped with are put back (preempt.h).
void preempt_signal_resuming(Task *t);

} // namespace copystack_rt

#endif
