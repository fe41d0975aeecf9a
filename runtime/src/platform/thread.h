// thread.h: the per-thread state the runtime and its assembly share.
//
// One Thread per OS thread, in initial-exec TLS so the assembly reaches it
// with two instructions. While a task runs on a thread:
//   - the split-stack limit (abi.h) holds task_limit, or 0 while the
//     thread runs on its own (system) stack: foreign calls, the runtime;
//   - sched_sp is where the thread's own stack was left when it switched to
//     the task; foreign calls and __morestack run below it.
#ifndef COPYSTACK_THREAD_H
#define COPYSTACK_THREAD_H

#include "asm_offsets.h" // of the target: runtime/src/arch/<arch>/
#include "machine.h"

#include "copystack/abi.h"

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

struct Task;
struct PinChunk;
struct Worker;

// The per-thread blocks of thread_heap.h, one slot per kind.
enum ThreadSlot { kSlotStackCache, kSlotTaskCache, kSlotFrameCache,
                  kSlotSanitizers, kSlotCounters, kNumThreadSlots };

// They belong to the OS thread, not to the task context that a bound run
// saves and restores by copying the Thread (scheduler.cc run_bound):
// copying a Thread leaves them alone.
struct ThreadSlots {
  void *p[kNumThreadSlots];
  ThreadSlots &operator=(const ThreadSlots &) { return *this; }
};

struct Thread {
  uintptr_t sched_sp;
  uintptr_t task_limit;
  Task *task;
  uintptr_t task_lo;
  uintptr_t task_hi;
  uintptr_t foreign_sp;
  // The pinned area of the running task (or of the thread outside tasks):
  // instrumented code bumps pin_top down between pin_lo and pin_hi.
  uintptr_t pin_top;
  uintptr_t pin_lo;
  uintptr_t pin_hi;
  PinChunk *pin_chunk; // the current chunk; its header links the previous
  // Set by __copystack_park: run on this thread's stack once the parking
  // task's context is saved (a lock to release, a timer to arm...); 1
  // before that from a _begin entry point that will park (park_pending).
  // Nonzero until the worker has run it (scheduler.cc execute_as): a park
  // in progress, which a fork waits for, so that the task is in the child
  // (sched/fork.cc). Written by this thread only; read by a forking one.
  void (*park_fn)(void *);
  union {
    void *park_arg;
    // The pinned area's slow paths' argument (abi.h): grow's bytes,
    // release's top. It shares the word with park_arg: each lives only
    // across one runtime call, and the two never nest (parking runs no
    // instrumented code); the signal trampoline keeps it for the code a
    // handler interrupts (signals.cc).
    uint64_t pin_arg;
  };
  // Counts foreign calls (the trampoline); with foreign_sp != 0 it tells the
  // monitor a worker is stuck in one (a count that wraps in 2^32 calls:
  // the monitor compares two looks a millisecond apart).
  uint32_t foreign_seq;
  // The thread's id, once pthread_sync.cc asked (0 until then): the owner
  // of the mutexes it locks outside tasks. The OS thread's, as the slots.
  int32_t tid;
  Worker *worker; // the scheduler worker this thread is, or null
  // Tasks this thread has started running (atomic: the monitor reads it to
  // see a task that keeps its worker for a time slice, sched/preempt.h).
  uint64_t run_seq;
  // The run_seq of the task the monitor asked to yield (atomic), when it
  // found the thread in a foreign call or the runtime: honoured when the
  // call returns to the task (__copystack_foreign_call_r10 puts the preemption
  // limit back instead of the task's), and at the next growth.
  uint64_t preempt_seq;
  ThreadSlots slots;
};

static_assert(offsetof(Thread, sched_sp) == THREAD_SCHED_SP, "asm_offsets.h");
static_assert(offsetof(Thread, task_limit) == THREAD_TASK_LIMIT,
              "asm_offsets.h");
static_assert(offsetof(Thread, task) == THREAD_TASK, "asm_offsets.h");
static_assert(offsetof(Thread, task_lo) == THREAD_TASK_LO, "asm_offsets.h");
static_assert(offsetof(Thread, task_hi) == THREAD_TASK_HI, "asm_offsets.h");
static_assert(offsetof(Thread, foreign_sp) == THREAD_FOREIGN_SP,
              "asm_offsets.h");
static_assert(offsetof(Thread, park_fn) == THREAD_PARK_FN, "asm_offsets.h");
static_assert(offsetof(Thread, park_arg) == THREAD_PARK_ARG, "asm_offsets.h");
static_assert(offsetof(Thread, foreign_seq) == THREAD_FOREIGN_SEQ,
              "asm_offsets.h");
static_assert(offsetof(Thread, run_seq) == THREAD_RUN_SEQ, "asm_offsets.h");
static_assert(offsetof(Thread, preempt_seq) == THREAD_PREEMPT_SEQ,
              "asm_offsets.h");
static_assert(offsetof(Thread, pin_top) == COPYSTACK_THREAD_PIN_TOP, "abi.h");
static_assert(offsetof(Thread, pin_lo) == COPYSTACK_THREAD_PIN_LO, "abi.h");
static_assert(offsetof(Thread, pin_hi) == COPYSTACK_THREAD_PIN_HI, "abi.h");
static_assert(offsetof(Thread, pin_arg) == COPYSTACK_THREAD_PIN_ARG, "abi.h");

// While th is in a foreign call from a task: the instrumented caller's
// return address, its stack pointer after the return, and its frame
// pointer. switch.S's frames, from foreign_sp up: on_thread_stack's saved
// frame pointer (the trampoline's frame pointer F) and its return
// address; at F, the task's frame pointer and the return address into the
// caller, whose stack pointer is F plus the trampoline's frame
// (kForeignCallFrameBytes: 16 bytes on x86-64, 32 on AArch64, where taking
// 16 put a caller without a frame record 16 bytes off: -O0's dispatch
// stubs, whose return address the dump then read from an argument).
inline bool foreign_caller(const Thread &th, uintptr_t *pc, uintptr_t *sp,
                           uintptr_t *fp) {
  uintptr_t at = th.foreign_sp;
  if (!at || at < th.task_lo || at + 16 > th.task_hi)
    return false;
  uintptr_t f = *reinterpret_cast<const uintptr_t *>(at);
  if (f < at || f + kForeignCallFrameBytes > th.task_hi)
    return false;
  *fp = reinterpret_cast<const uintptr_t *>(f)[0];
  *pc = reinterpret_cast<const uintptr_t *>(f)[1];
  *sp = f + kForeignCallFrameBytes;
  return true;
}

} // namespace copystack_rt

extern "C" {
extern __thread copystack_rt::Thread __copystack_thread
    __attribute__((tls_model("initial-exec")));

// switch.S
void __copystack_switch(uintptr_t *save_sp, uintptr_t new_sp,
                        uintptr_t new_limit);
void __copystack_task_start();
extern char __copystack_task_return[];
// Where a task stopped by __copystack_preempt resumes (sched/preempt.h),
// and one the preemption signal stopped (sched/preempt_signal.h).
extern char __copystack_preempt_resume[];
extern char __copystack_signal_resume[];
// fn(arg) on the thread's own stack: the entry of a task whose function
// is foreign code. (__copystack_foreign_call_r10 itself takes its target in
// %r10 and has no C signature: switch.S.)
void __copystack_foreign_entry(void (*fn)(void *), void *arg);
}

namespace copystack_rt {
// A _begin entry point that returns a MUST_PARK code (abi.h) returns with
// a lock held that the task's coming park releases: marked in park_fn
// until __copystack_park stores the real one, so that the preemption
// signal (sched/preempt_signal.h) does not stop the task in between,
// keeping the lock while other tasks on its thread wait for it.
inline int park_pending(int code) {
  __copystack_thread.park_fn = reinterpret_cast<void (*)(void *)>(1);
  return code;
}

// Whether a suspended task's switch frame returns to one of the two: the
// task stopped where no safepoint is, and its stack neither moves nor is
// compacted until it resumes on the thread it stopped on.
inline bool preempted_resume(uintptr_t ret) {
  return ret == reinterpret_cast<uintptr_t>(__copystack_preempt_resume) ||
         ret == reinterpret_cast<uintptr_t>(__copystack_signal_resume);
}
} // namespace copystack_rt

#endif
