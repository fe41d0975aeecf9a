// shrink.h: moving the stack of a suspended task (the collector's half of
// Go's shrinkstack; sched/collect.h decides when).
//
// A suspended task (parked, runnable, or not yet started) has its context
// in the switch frame at its saved %rsp: the frames above it are complete,
// so its stack can move like a growing one (copy.h), starting the walk at
// the switch frame. Only whoever holds the task (kShrinking, or the worker
// it just parked on) may do it.
#ifndef COPYSTACK_CORE_SHRINK_H
#define COPYSTACK_CORE_SHRINK_H

#include "sched/task.h"

#include <cstddef>

namespace copystack_rt {

// A stack is halved when its frames, the guard and this much more fit in
// the half (and it uses under a quarter, Go's rule): a task that resumes
// has room for a call or two before it must grow again. The adaptive start
// size leaves the same slack.
constexpr size_t kShrinkSlack = 256;

// Moves the stack of suspended task t: to half the size when it uses under
// a quarter and its frames, the guard and some slack fit in the half (Go's
// rule), else, when always_move, to a fresh stack of the same size (stress
// mode). Returns whether it shrank. to_pool: release the old stack to the
// shared pool (the collector is not where stacks are allocated).
bool shrink_suspended(Task *t, bool always_move, bool to_pool);

// Whether suspended task t has run (its switch frame does not return
// into __copystack_task_start).
bool task_started(const Task *t);

// Whether suspended task t was preempted (sched/preempt.h): it stopped
// where no safepoint is, at a loop poll, a prologue or (the signal) any
// instruction, and resumes only on the thread it stopped on.
bool task_preempted(const Task *t);

// Whether suspended task t's stack may be compacted (core/copy.h): it has
// started, stopped at a safepoint (not preempted), is not compacted
// already, and no sanitizer watches the stacks (their shadow memory and
// LeakSanitizer's root regions follow stacks, not heap blocks).
bool can_compact(const Task *t);

} // namespace copystack_rt

#endif
