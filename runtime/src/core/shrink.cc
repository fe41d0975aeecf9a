// shrink.cc: moving the stack of a suspended task (shrink.h).
#include "platform/split_stack_notes.h"
#include "core/shrink.h"
#include "core/copy.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "platform/stats.h"
#include "sched/trace.h"

#include "copystack/abi.h"

namespace copystack_rt {

namespace {

// A task preempted (it resumes on this stack), or whose call an I/O thread
// makes in its stack (Task::stack_held): its stack stays where it is.
bool held(const Task *t) { return task_preempted(t) || t->stack_held; }

} // namespace

bool task_preempted(const Task *t) {
  return preempted_resume(reinterpret_cast<const SwitchFrame *>(t->sp)->ret);
}

bool task_started(const Task *t) {
  return reinterpret_cast<const SwitchFrame *>(t->sp)->ret !=
         reinterpret_cast<uintptr_t>(&__copystack_task_start);
}

bool can_compact(const Task *t) {
  return !t->compacted && !held(t) && task_started(t) &&
         !san::separate_stacks();
}

bool shrink_suspended(Task *t, bool always_move, bool to_pool) {
  CS_CHECK(!t->compacted, "a compacted task's stack is not moved");
  if (held(t))
    return false;
  const Stack old = t->stack;
  const size_t used = old.hi - t->sp;
  size_t size = old.size();
  if (size > COPYSTACK_MIN_STACK && used * 4 < size &&
      used + COPYSTACK_GUARD + kShrinkSlack <= size / 2)
    size /= 2;
  else if (!always_move)
    return false;

  const Copy c = copy_stack(t, size, t->sp, Block::kSwitch, nullptr, to_pool);
  t->sp = c.block;

  const bool shrunk = size < old.size();
  Stats &st = stats();
  (shrunk ? st.shrinks : st.moves)++;
  trace::stack(t->id, shrunk ? trace::kShrink : trace::kSuspendedMove,
               old.size(), size, used);
  if (config().trace)
    report("task %lu %s: %zu -> %zu bytes, %zu live, %lu ns",
           (unsigned long)t->id, shrunk ? "shrink" : "move (suspended)",
           old.size(), size, used, (unsigned long)c.ns);
  return shrunk;
}

} // namespace copystack_rt
