// task.h: a task, the unit that runs on a copyable stack.
#ifndef COPYSTACK_TASK_H
#define COPYSTACK_TASK_H

#include "asm_offsets.h"
#include "core/pin.h"
#include "core/stack_alloc.h"
#include "platform/config.h"
#include "copystack/abi.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace copystack_rt {

struct Task;
struct Runner;
struct SelectState;

// A task waiting on a primitive (Go's sudog). Every task has one; a select
// uses one per case (SelectState).
struct Waiter {
  Task *task = nullptr;
  Waiter *next = nullptr, *prev = nullptr;
  void *buf = nullptr;      // the element being passed, runtime-owned
  void *obj = nullptr;      // the channel it waits on
  int32_t ok = 0;           // the operation completed (vs. closed)
  int16_t index = -1;       // the select case, or -1
  bool queued = false;      // in a wait queue now
};

// A task's state, for the collector (shrink.cc): a task's stack may move
// only while it is suspended, and only by whoever holds it.
enum TaskState : uint8_t {
  kFree = 0,      // not a live task (in a cache, or being built)
  kSuspended = 1, // parked, runnable or not yet started: its sp is saved
  kRunning = 2,   // on a thread now
  kShrinking = 3, // the collector is moving its stack
  // In a child of fork(): it was on a thread the child does not have
  // (running there, preempted there, or bound to it), and never runs
  // again (sched/fork.cc). The deadlock check counts it as asleep, the
  // task dump names it.
  kLost = 4,
};

// Why a suspended task waits (Go's waitReason), for the task dump and the
// deadlock check (sched/deadlock.h): the primitives set it when the task
// must park, ready() clears it.
enum WaitReason : uint8_t {
  kWaitNone = 0,       // running or runnable
  kWaitChanSend,       // chan send
  kWaitChanRecv,       // chan receive
  kWaitSelect,         // select
  kWaitSelectNoCases,  // select with no cases: forever (a nil channel)
  kWaitWaitGroup,      // wait group wait
  kWaitMutex,          // mutex lock
  kWaitSleep,          // sleep: a timer wakes it
  kWaitExternal,       // an external event (a file descriptor's poller)
};
// A blocking call's wait, an external one that the task dump names:
// kWaitCall | the call's copystack_io_kind (sched/io_calls.h, below 64),
// with kWaitOnIoThread when one of the I/O threads makes it.
constexpr uint8_t kWaitCall = 0x80;
constexpr uint8_t kWaitOnIoThread = 0x40;

// Only other tasks and threads can end these waits: a program whose tasks
// all wait so, with nothing outside them that could, is deadlocked.
inline bool waits_on_tasks(uint8_t r) {
  return r != kWaitNone && r != kWaitSleep && r != kWaitExternal &&
         !(r & kWaitCall);
}

// 224 bytes: with a 2 KiB stack, what a parked task costs (docs/tasks.md).
struct Task {
  uintptr_t sp = 0;      // saved %rsp while suspended (a switch frame)
  union {
    uintptr_t result = 0;   // the entry function's return value, once done
    // While preempted: the shared queues' put count when it stopped; it
    // runs again once the tasks queued before it have been taken (preempt.h).
    uint64_t preempt_ticket;
    // While parked, when the block profile records: since when, or once
    // woken how long, and why (profile.h).
    uint64_t blocked;
  };
  uint8_t done = 0;      // set by __copystack_task_start when entry returns
  // Who may touch the task's stack (TaskState); the collector moves a
  // suspended task's stack only after taking it from kSuspended.
  std::atomic<uint8_t> state{kFree};
  uint16_t site = 0;     // its spawn site's slot in the learned sizes
  uint32_t copies = 0;   // how many times its stack moved
  Stack stack;
  uint64_t id = 0;
  // Verify mode: the lowest address the task's frames may have written
  // since the last scrub (growth.cc).
  uintptr_t scrub_low = 0;
  PinState pins;          // the task's pinned area while it does not run
  Task *next = nullptr;   // in a run queue
  Runner *runner = nullptr; // bound to a thread (copystack_run), or null
  SelectState *select = nullptr;
  Waiter wait;            // its waiter record
  // Where it was started: the return address of the copystack_go (or
  // copystack_run, or thread start) call, for "created by" in the dump.
  uintptr_t spawn_pc = 0;
  // While it waits: since when (coarse_ms(), wrapping after 49 days) and
  // why (WaitReason).
  // Atomic (relaxed): the collector may read it while the worker's then()
  // callback still sets it (scheduler.cc execute(): the task is suspended
  // before then() runs).
  std::atomic<uint32_t> wait_since{0};
  std::atomic<uint8_t> wait_reason{kWaitNone};
  // Its stack was compacted (core/copy.h compact_suspended): sp points at
  // the switch frame in a heap block, stack is the range its words name,
  // and it must be expanded before it runs.
  uint8_t compacted = 0;
  // A collection saw it parked, and it has not run since (set_waiting
  // clears it): the next collection compacts it (sched/collect.cc).
  // Atomic for the same reason as wait_since.
  std::atomic<uint8_t> parked_seen{0};
  // In-place calls whose room test failed since its last request for room
  // (abi.h COPYSTACK_ROOM_LIMIT; switch.S __copystack_no_room counts them).
  uint8_t room_misses = 0;
  // The C++ runtime's exception state while the task does not run
  // (scheduler.cc, EhSwap): the caught exceptions it has not finished
  // with, and how many it threw that are not caught yet.
  void *eh_caught = nullptr;
  uint32_t eh_uncaught = 0;
  // An I/O thread makes a call on its behalf with the arguments where the
  // task left them, on its stack (io_pool.h pool_hop): the collector
  // neither moves nor compacts that stack until the task runs again.
  uint8_t stack_held = 0;
  // Small closures of copystack_go (the C++ API) live here, not on the heap.
  alignas(16) unsigned char closure[32];
  // A small element a channel operation passes while the task waits.
  alignas(16) unsigned char elem[32];
};

static_assert(offsetof(Task, sp) == TASK_SP, "asm_offsets.h");
static_assert(offsetof(Task, result) == TASK_RESULT, "asm_offsets.h");
static_assert(offsetof(Task, done) == TASK_DONE, "asm_offsets.h");
static_assert(offsetof(Task, room_misses) == TASK_ROOM_MISSES,
              "asm_offsets.h");
static_assert(sizeof(Task) <= 240, "a task structure stays small");

// A new task that will call entry(a0, a1, a2) on a stack of start_size
// bytes. entry must be instrumented; for foreign code use
// __copystack_foreign_entry as entry with (fn, arg) as arguments.
Task *create_task(uintptr_t entry, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                  size_t start_size);
// A task for fn(arg), handing foreign code to the thread's stack. Its stack
// starts at its spawn site's learned size, the default one, or hint bytes,
// whichever is largest.
Task *create_task_for(void (*fn)(void *), void *arg, size_t hint = 0);
// A task for fn(closure), where closure is the task's own 32-byte buffer.
Task *create_closure_task(void (*fn)(void *), size_t hint = 0);
// That buffer: t->closure, or under ThreadSanitizer one that belongs to
// this task alone (platform/sanitizers.h).
void *closure_of(Task *t);
void destroy_task(Task *t);

// The split-stack limit (abi.h, COPYSTACK_TCB_LIMIT) for a task on stack
// s. Stress and verify modes make every prologue check fail, so that every
// instrumented call enters the runtime (growth.cc decides what to do).
inline uintptr_t limit_for(const Stack &s) {
  const Config &c = config();
  if (c.stress || c.verify)
    return ~uintptr_t(0);
  return s.lo + COPYSTACK_GUARD;
}

// Bytes of task-structure slabs allocated (they are kept for reuse).
uint64_t task_bytes_sys();

// Calls fn(t, arg) for every task structure ever allocated (live or not:
// fn looks at t->state). Slabs are never freed, so this is safe from any
// thread at any time.
void for_each_task(void (*fn)(Task *, void *), void *arg);

// Takes a suspended task for running on this thread (waits while the
// collector moves its stack), and gives it back once it is suspended again.
void begin_running(Task *t);
void end_running(Task *t);

// Takes a suspended task so that nothing runs or moves it (the collector,
// the task dump, the deadlock check: kSuspended -> kShrinking); false if it
// is not suspended. release_task gives it back.
bool hold_task(Task *t);
void release_task(Task *t);

// hold_task for the observers (the task dump, the deadlock check): a task
// another holder has (the collector, moving or measuring its stack, which
// takes microseconds) is waited for, until coarse_ms() reaches deadline_ms,
// instead of being reported as it is for that moment. False if the task is
// running or free, or still held at the deadline (a holder that died, or
// the caller's own thread, or another observer's look). One deadline
// serves a whole look over the tasks: kObservePatienceMs from its start,
// so that a look that meets many tasks held for long still ends soon.
bool hold_task_until(Task *t, uint32_t deadline_ms);
constexpr uint32_t kObservePatienceMs = 1000;

// Records that the calling task is about to park for reason r (under the
// primitive's lock: whoever wakes it sees the record).
void set_waiting(Task *t, uint8_t r); // a WaitReason, or kWaitCall | ...

// fork(): the task structures' locks (sched/fork.cc).
void task_fork_lock();
void task_fork_unlock();

// A blocking call (`call`) on a thread that runs no task: stops the
// program with a message saying so.
[[noreturn]] void outside_task(const char *call);

// A monotonic clock in milliseconds, cheap (CLOCK_MONOTONIC_COARSE).
uint32_t coarse_ms();

} // namespace copystack_rt

#endif
