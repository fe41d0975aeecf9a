// stats_api.cc: copystack_get_stats, a snapshot of every layer's counters
// (copystack.h, "What stack growth costs"), and the growth hook.
#include "platform/split_stack_notes.h"
#include "core/copy.h"
#include "core/pin.h"
#include "core/stack_alloc.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/stats.h"
#include "sched/scheduler.h"
#include "sched/sync.h"
#include "sched/task.h"

#include "copystack/copystack.h"

using namespace copystack_rt;

extern "C" {

void copystack_get_stats(copystack_stats *out) {
  if (!out)
    fatal("copystack_get_stats: the output structure is null");
  Stats &s = stats();
  out->tasks_created = static_cast<uint64_t>(counter_load(Counter::kTasksCreated));
  out->growths = s.growths.load();
  out->moves = s.moves.load();
  out->bytes_copied = s.bytes_copied.load();
  out->copy_ns = s.copy_ns.load();
  out->pointers_adjusted = s.pointers_adjusted.load();
  out->stack_inuse = stack_bytes_inuse();
  out->stack_sys = stack_bytes_sys();
  out->tasks_live = live_tasks();
  out->task_inuse = out->tasks_live * sizeof(Task);
  out->task_sys = task_bytes_sys();
  out->pinned_sys = pinned_bytes_sys();
  out->chan_inuse = chan_bytes_inuse();
  out->tasks_compacted = compacted_tasks();
  out->compacted_bytes = compacted_bytes();
  out->compactions = s.compactions.load();
  out->expansions = s.expansions.load();
  out->expand_ns = s.expand_ns.load();
  out->sys = out->stack_sys + out->task_sys + out->pinned_sys +
             out->chan_inuse + out->compacted_bytes;
  out->shrinks = s.shrinks.load();
  out->preemptions = s.preemptions.load();
  out->preemptions_signal = s.preemptions_signal.load();
  out->collections = s.collections.load();
  out->stack_released = stack_bytes_released();
  out->start_stack = default_start_stack();
}

copystack_growth_hook copystack_set_growth_hook(copystack_growth_hook hook,
                                                void *data) {
  return set_growth_hook(hook, data);
}

} // extern "C"
