// task.h: a task, the unit that runs on a copyable stack.
#ifndef COPYSTACK_TASK_H
#define COPYSTACK_TASK_H

#include "arch/x86_64/asm_offsets.h"
#include "stack_alloc.h"

#include <cstddef>
#include <cstdint>

namespace copystack {

struct Task {
  uintptr_t sp = 0;      // saved %rsp while suspended (a switch frame)
  uintptr_t result = 0;  // the entry function's return value
  uint32_t done = 0;     // set by __copystack_task_start when entry returns
  uint32_t reserved = 0;
  Stack stack;
  uint64_t id = 0;
  uint64_t copies = 0;
  // Verify mode: the lowest address the task's frames may have written
  // since the last scrub (growth.cc).
  uintptr_t scrub_low = 0;
};

static_assert(offsetof(Task, sp) == TASK_SP, "asm_offsets.h");
static_assert(offsetof(Task, result) == TASK_RESULT, "asm_offsets.h");
static_assert(offsetof(Task, done) == TASK_DONE, "asm_offsets.h");

// A new task that will call entry(a0, a1, a2) on a stack of start_size
// bytes. entry must be instrumented; for foreign code use
// __copystack_foreign_call as entry with (thunk, frame) as arguments.
Task *create_task(uintptr_t entry, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                  size_t start_size);
void destroy_task(Task *t);

// Runs t on the calling thread until it finishes. Nests: a task may call it
// (through a foreign call) to run another task.
void run_to_completion(Task *t);

// The %fs:0x70 value for a task on stack s.
uintptr_t limit_for(const Stack &s);

} // namespace copystack

#endif
