// preempt_signal.cc: asynchronous preemption by a signal
// (preempt_signal.h).
#include "sched/preempt_signal.h"
#include "core/eh_frame.h"
#include "core/frame_info.h"
#include "platform/config.h"
#include "platform/constants.h"
#include "platform/sanitizers.h"
#include "platform/signals.h"
#include "platform/split_stack_notes.h"
#include "platform/stats.h"
#include "platform/valgrind.h"
#include "sched/preempt.h"
#include "sched/scheduler.h"
#include "sched/task.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ctime>
#include <ucontext.h>
#include <unistd.h>

#include "signal_frame.h" // the architecture's (runtime/src/arch/)

extern "C" {
void __copystack_signal_preempt(); // switch.S
void __copystack_park(void (*)(void *), void *);
}

namespace copystack_rt {

namespace {

constexpr int kSignal = SIGURG;
// Retries after the task was found in the C library in place.
constexpr long kRetryNs = 20 * 1000;
constexpr int kRetries = 50;

// Tells the runtime's signal from a program's SIGURG.
char g_magic;
std::atomic<bool> g_on{false};

} // namespace

// One stopped context: the interrupted registers as the signal frame had
// them (arch signal_frame.h).
struct SignalContext {
  SignalContext *next;
  Task *task; // the task stopped, once it has parked
  uint64_t pin_arg;
  void *once[2]; // preempt.cc save_once_tls
  alignas(64) sigframe::Saved saved; // its size: sigframe::saved_bytes()
};

namespace {

using Context = SignalContext;
using Buffers = SignalBuffers;

size_t context_bytes() {
  size_t n = offsetof(Context, saved) + sigframe::saved_bytes();
  return (n + kPage - 1) & ~(kPage - 1);
}

Context *make_context() {
  void *p = mmap(nullptr, context_bytes(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<Context *>(p);
}

// The running worker's buffers (its Worker outlives the thread's tasks:
// a retired worker's thread runs the tasks stopped there before it exits).
Buffers *buffers(Thread &th) {
  return th.worker ? worker_signal_buffers(th.worker) : nullptr;
}

// The context of t, stopped on this thread; unlinked if take.
Context *stopped_context(Buffers &b, const Task *t, bool take) {
  for (Context **at = &b.stopped; *at; at = &(*at)->next)
    if ((*at)->task == t) {
      Context *c = *at;
      if (take)
        *at = c->next;
      return c;
    }
  fatal("task %llu resumes from a preemption signal's stop, but its "
        "thread holds no context for it",
        static_cast<unsigned long long>(t->id));
}

void refill(Buffers &b) {
  if (b.ready)
    return;
  if (Context *c = b.spare) {
    b.spare = c->next;
    b.ready = c;
    return;
  }
  b.ready = make_context();
}

// Whether pc is inside an instrumented function: the FDE covering it
// begins at a copystack prefix. Reads only; _dl_find_object takes no lock.
bool instrumented_pc(uintptr_t pc) {
  const char *why;
  const uint8_t *fde = find_fde(pc, &why);
  Fde f;
  // __copystack_park carries the prefix (switch.S) and is the runtime's.
  return fde && parse_fde(fde, pc, f, &why) && f.begin <= pc && pc < f.end &&
         f.begin != reinterpret_cast<uintptr_t>(&__copystack_park) &&
         is_instrumented(reinterpret_cast<const void *>(f.begin));
}

// The stop itself (preempt_signal.h has the conditions).
enum Stop { kStopped, kNotNow, kRetrySoon };
Stop stop(Thread &th, void *uctx) {
  if (!th.task || th.park_fn) // no task, or it holds a lock until it parks
    return kNotNow;
  auto *uc = static_cast<ucontext_t *>(uctx);
  const uintptr_t sp = context_sp(uc);
  const uintptr_t pc = context_pc(uc);
  if (sp <= th.task_lo || sp > th.task_hi ||
      sp - th.task_lo < sigframe::kStopBytes + 16)
    return kNotNow;
  Buffers *b = buffers(th);
  if (!b || !b->ready || b->taken)
    return kNotNow;
  if (!instrumented_pc(pc))
    return kRetrySoon; // the C library in place, or the runtime's code
  Context *c = b->ready;
  if (!sigframe::save(&c->saved, uctx))
    return kNotNow;
  c->pin_arg = th.pin_arg;
  b->ready = nullptr;
  b->taken = c;
  sigframe::redirect(uctx,
                     reinterpret_cast<uintptr_t>(&__copystack_signal_preempt));
  return kStopped;
}

void on_signal(int sig, siginfo_t *info, void *uctx) {
  if ((info->si_code != SI_QUEUE && info->si_code != SI_TIMER) ||
      info->si_value.sival_ptr != &g_magic) {
    forward_signal(sig, info, uctx);
    return;
  }
  int saved_errno = errno;
  Thread &th = __copystack_thread;
  Buffers *b = buffers(th);
  if (b && info->si_code == SI_QUEUE)
    b->retries = kRetries; // a new request: a new budget
  // A task in a foreign call (limit 0) is not signalled again: the call
  // may block in a system call the signal would interrupt, and its return
  // stops the task anyway (switch.S, __copystack_foreign_call_r10).
  if (read_limit() == COPYSTACK_PREEMPT_LIMIT &&
      stop(th, uctx) == kRetrySoon && b && b->timer_tid == th.tid &&
      b->retries > 0) {
    --b->retries;
    struct itimerspec in = {{0, 0}, {0, kRetryNs}};
    timer_settime(static_cast<timer_t>(b->timer), 0, &in, nullptr);
  }
  errno = saved_errno;
}

} // namespace

namespace {

bool start() {
  if (!config().preempt || !config().preempt_signal || san::tsan() ||
      vg::running())
    return false;
  sigframe::init();
  reserve_signal(kSignal, on_signal);
  return true;
}

} // namespace

bool preempt_signal_start() {
  static const bool on = start(); // thread-safe, once
  g_on = on;
  return on;
}

void preempt_signal_prepare_thread() {
  if (!preempt_signal_start())
    return;
  Thread &th = __copystack_thread;
  if (!th.tid)
    th.tid = static_cast<int32_t>(syscall(SYS_gettid));
  Buffers *b = buffers(th);
  if (!b)
    return;
  refill(*b);
  if (b->timer_tid != th.tid) {
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = kSignal;
    ev.sigev_value.sival_ptr = &g_magic;
    ev._sigev_un._tid = th.tid;
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0) {
      b->timer = timer;
      b->timer_tid = th.tid;
    }
  }
}

void preempt_signal_resuming(Task *t) {
  load_once_tls(stopped_context(*buffers(__copystack_thread), t, false)->once);
}

void preempt_signal_send(Thread *th, uint64_t min_gap_ns) {
  if (!g_on)
    return;
  int tid = __atomic_load_n(&th->tid, __ATOMIC_RELAXED);
  Worker *w = __atomic_load_n(&th->worker, __ATOMIC_RELAXED);
  if (!tid || !w)
    return;
  std::atomic<uint64_t> &sent = worker_signal_buffers(w)->sent_ns;
  uint64_t now = now_ns(), last = sent.load(std::memory_order_relaxed);
  if (min_gap_ns && (now - last < min_gap_ns ||
                     !sent.compare_exchange_strong(last, now,
                                                   std::memory_order_relaxed)))
    return;
  if (!min_gap_ns)
    sent.store(now, std::memory_order_relaxed);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = kSignal;
  si.si_code = SI_QUEUE;
  si.si_pid = getpid();
  si.si_uid = getuid();
  si.si_value.sival_ptr = &g_magic;
  syscall(SYS_rt_tgsigqueueinfo, si.si_pid, tid, kSignal, &si);
}

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" {

// Runs on the worker's stack once a task the signal stopped has parked
// (__copystack_signal_preempt, switch.S): the context joins the worker's
// stopped ones, with the task's once words (preempt.cc), and the worker
// gets a buffer for the next stop. Nothing goes in the task's element
// buffer, which may hold a value a channel handed it before the stop.
void __copystack_signal_then(void *) {
  Thread &th = __copystack_thread;
  Buffers &b = *buffers(th);
  Task *t = parking_task();
  Context *c = b.taken;
  b.taken = nullptr;
  c->task = t;
  save_once_tls(c->once);
  c->next = b.stopped;
  b.stopped = c;
  refill(b);
  stats().preemptions_signal++;
  keep_preempted(t);
}

// On the thread's stack, when the task runs again: every register back as
// the signal found it, by the kernel (never returns).
__attribute__((noreturn)) void
__copystack_signal_restore() {
  Thread &th = __copystack_thread;
  Buffers &b = *buffers(th);
  Context *c = stopped_context(b, th.task, true);
  th.pin_arg = c->pin_arg;
  // Back among the spares before the kernel reads it: only the scheduler
  // on this thread (__copystack_signal_then) takes a spare, and it cannot
  // run before the task does.
  c->next = b.spare;
  b.spare = c;
  sigframe::resume(&c->saved);
}

} // extern "C"
