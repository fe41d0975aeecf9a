// task.h: a task, the unit that runs on a copyable stack.
#ifndef COPYSTACK_TASK_H
#define COPYSTACK_TASK_H

#include "arch/x86_64/asm_offsets.h"
#include "core/pin.h"
#include "core/stack_alloc.h"

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
};

// 224 bytes: with a 2 KiB stack, what a parked task costs (docs/tasks.md).
struct Task {
  uintptr_t sp = 0;      // saved %rsp while suspended (a switch frame)
  uintptr_t result = 0;  // the entry function's return value
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
  // Small closures of copystack_go (the C++ API) live here, not on the heap.
  alignas(16) unsigned char closure[32];
  // A small element a channel operation passes while the task waits.
  alignas(16) unsigned char elem[32];
};

static_assert(offsetof(Task, sp) == TASK_SP, "asm_offsets.h");
static_assert(offsetof(Task, result) == TASK_RESULT, "asm_offsets.h");
static_assert(offsetof(Task, done) == TASK_DONE, "asm_offsets.h");
static_assert(sizeof(Task) <= 224, "a task structure stays small");

// A new task that will call entry(a0, a1, a2) on a stack of start_size
// bytes. entry must be instrumented; for foreign code use
// __copystack_foreign_call as entry with (thunk, frame) as arguments.
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

// The split-stack limit (abi.h, COPYSTACK_TCB_LIMIT) for a task on stack s.
uintptr_t limit_for(const Stack &s);

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

} // namespace copystack_rt

#endif
