// preempt.cc: preemption (preempt.h).
#include "sched/preempt.h"
#include "core/copy.h"
#include "platform/config.h"
#include "platform/split_stack_notes.h"
#include "platform/stats.h"
#include "sched/preempt_signal.h"
#include "sched/scheduler.h"

#include "copystack/abi.h"

#include <cstring>
#include <mutex>

namespace copystack_rt {

namespace {

static_assert(COPYSTACK_PREEMPT_LIMIT == ~uint64_t(1),
              "switch.S stores it as $-2");

// Go's forcePreemptNS: a task runs at most this long while others wait.
constexpr uint64_t kTimeSliceNs = 10 * 1000 * 1000;
constexpr int kSlots = 1024; // scheduler.cc's kMaxWorkers
constexpr uint64_t kResignalNs = 50 * 1000;

// What the monitor last saw of each worker slot (monitor thread only).
struct Watch {
  Thread *th = nullptr;
  uint64_t run_seq = 0;
  uint64_t since = 0;
};
Watch g_watch[kSlots];

// This thread's preempted tasks, linked through Task::next.
struct Preempted {
  Task *head, *tail;
};
__thread Preempted t_preempted;

// Where a thread's split-stack limit is, from its Thread: both are in the
// static TLS block, at a fixed distance from the thread pointer (the TCB,
// whose COPYSTACK_TCB_LIMIT word the prologues compare against).
uintptr_t *limit_slot(Thread *th) {
  static const uintptr_t tls_offset =
      reinterpret_cast<uintptr_t>(&__copystack_thread) -
      reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
  return reinterpret_cast<uintptr_t *>(reinterpret_cast<uintptr_t>(th) -
                                       tls_offset + COPYSTACK_TCB_LIMIT);
}

} // namespace

void preempt_watch(int slot, Thread *th, uint64_t now) {
  if (!config().preempt || slot < 0 || slot >= kSlots)
    return;
  Watch &w = g_watch[slot];
  uint64_t seq = __atomic_load_n(&th->run_seq, __ATOMIC_RELAXED);
  uintptr_t *limit = limit_slot(th);
  if (w.th != th || w.run_seq != seq || now - w.since < kTimeSliceNs) {
    if (w.th != th || w.run_seq != seq) {
      w.th = th;
      w.run_seq = seq;
      w.since = now;
    }
    // Asked (a slice ago, or for a woken task) and still running: code
    // that reaches no check or poll is stopped by the signal, sent again
    // every tick until it is.
    if (__atomic_load_n(limit, __ATOMIC_RELAXED) == COPYSTACK_PREEMPT_LIMIT)
      preempt_signal_send(th);
    return;
  }
  w.since = now; // asked again a slice later if it did not stop
  __atomic_store_n(&th->preempt_seq, seq, __ATOMIC_RELAXED);
  uintptr_t v = __atomic_load_n(limit, __ATOMIC_RELAXED);
  if (v == 0)
    return; // in a foreign call or the runtime
  if (v == COPYSTACK_PREEMPT_LIMIT ||
      __atomic_compare_exchange_n(limit, &v,
                                  uintptr_t(COPYSTACK_PREEMPT_LIMIT), false,
                                  __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    preempt_signal_send(th);
}

bool preempt_now(Thread *th, bool again) {
  if (!config().preempt)
    return true; // nothing to ask anywhere
  // preempt_seq first, as the monitor does (preempt_watch): a request
  // that lands between __copystack_no_room's test and its store is not
  // lost, since __copystack_grow reads it.
  uint64_t seq = __atomic_load_n(&th->run_seq, __ATOMIC_RELAXED);
  __atomic_store_n(&th->preempt_seq, seq, __ATOMIC_RELAXED);
  uintptr_t *limit = limit_slot(th);
  uintptr_t v = __atomic_load_n(limit, __ATOMIC_RELAXED);
  if (v == 0)
    return false; // in a foreign call, the runtime or the scheduler
  if (v == COPYSTACK_PREEMPT_LIMIT) {
    // Asked already, and signalled; but the signal is dropped where it
    // finds the task outside its own code (the C library in place, a vDSO
    // clock read), and the monitor sends it again only a tick later. A
    // woken task that waits sends it again after 50 us.
    preempt_signal_send(th, again ? 0 : kResignalNs);
    return true;
  }
  if (__atomic_compare_exchange_n(limit, &v,
                                  uintptr_t(COPYSTACK_PREEMPT_LIMIT), false,
                                  __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    preempt_signal_send(th);
  return true;
}

// libstdc++'s std::call_once passes the callable to the C library's
// pthread_once through two thread-local words, set inline in the caller
// and read by the callable's trampoline (bits/mutex.h: __once_callable,
// __once_call). The runtime's pthread_once (io_calls.c) runs the
// trampoline in the task, and a preemption at a prologue check in between
// lets other tasks run on the thread; one that calls std::call_once sets
// the words and clears them when done, and the preempted task's
// trampoline then called through null (a crash in 1 of ~10 runs of 10,000
// tasks fulfilling std::promises on a loaded machine). The words are kept
// in the task while it is preempted, in its channel element buffer, which
// only a task waiting on a channel uses. The invariant: a preempted task
// resumes with the thread-local state it stopped with that inline library
// code keeps across a call (errno, kept by every switch; these). A task
// the signal stopped keeps them with its context instead
// (preempt_signal.cc): it may have stopped between a channel park's return
// and the _end call that reads the element waiting in that buffer.
void save_once_tls(void *out[2]) {
  out[0] = std::__once_callable;
  out[1] = reinterpret_cast<void *>(std::__once_call);
}

void load_once_tls(void *const in[2]) {
  std::__once_callable = in[0];
  std::__once_call = reinterpret_cast<void (*)()>(in[1]);
}

void resume_preempted(Task *t) {
  uintptr_t ret = reinterpret_cast<const SwitchFrame *>(t->sp)->ret;
  if (ret == reinterpret_cast<uintptr_t>(__copystack_preempt_resume))
    load_once_tls(reinterpret_cast<void *const *>(t->elem));
  else if (ret == reinterpret_cast<uintptr_t>(__copystack_signal_resume))
    preempt_signal_resuming(t);
}

void keep_preempted(Task *t) {
  stats().preemptions++;
  if (t->runner) { // bound to its thread anyway: the usual hand-back
    ready(t);
    return;
  }
  Preempted &p = t_preempted;
  t->next = nullptr;
  t->preempt_ticket = shared_queue_puts();
  if (p.tail)
    p.tail->next = t;
  else
    p.head = t;
  p.tail = t;
}

bool preempted_waiting() { return t_preempted.head != nullptr; }

bool preempted_here(const Task *t) {
  for (const Task *p = t_preempted.head; p; p = p->next)
    if (p == t)
      return true;
  return false;
}

Task *preempted_take(bool any) {
  Preempted &p = t_preempted;
  Task *t = p.head;
  if (!t || (!any && static_cast<int64_t>(shared_queue_takes() -
                                          t->preempt_ticket) < 0))
    return nullptr;
  p.head = t->next;
  if (!p.head)
    p.tail = nullptr;
  t->next = nullptr;
  // The word is the block profile's when the task parks (profile.h): a
  // ticket left there would make execute() call it at every resume.
  t->preempt_ticket = 0;
  return t;
}

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" {

// Runs on the worker's stack once a preempted task has parked
// (__copystack_preempt, switch.S).
void __copystack_preempt_then(void *) {
  Task *t = parking_task();
  static_assert(2 * sizeof(void *) <= sizeof t->elem, "the task's buffer");
  save_once_tls(reinterpret_cast<void **>(t->elem));
  keep_preempted(t);
}

} // extern "C"
