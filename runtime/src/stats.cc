// stats.cc: counters and growth events (stats.h).
#include "split_stack_notes.h"
#include "stats.h"
#include "config.h"
#include "copystack/abi.h"
#include "fatal.h"
#include "pin.h"
#include "scheduler.h"
#include "stack_alloc.h"
#include "sync.h"
#include "task.h"

#include <time.h>

namespace copystack_rt {

namespace {
std::atomic<copystack_growth_hook> g_hook{nullptr};
std::atomic<void *> g_hook_data{nullptr};
} // namespace

Stats &stats() {
  static Stats s;
  return s;
}

uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

void publish_growth(const copystack_growth_event &ev) {
  if (config().trace)
    report("task %lu copy %lu: %zu -> %zu bytes, %zu live, %zu headroom, "
           "frame %zu for %s, %lu ns%s",
           (unsigned long)ev.task_id, (unsigned long)ev.copy_number,
           ev.old_size, ev.new_size, ev.used, ev.headroom, ev.frame,
           ev.function, (unsigned long)ev.ns, ev.forced ? " (stress)" : "");
  if (copystack_growth_hook h = g_hook.load())
    h(&ev, g_hook_data.load());
}

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" {

void copystack_get_stats(copystack_stats *out) {
  Stats &s = stats();
  out->tasks_created = s.tasks_created.load();
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
  out->sys = out->stack_sys + out->task_sys + out->pinned_sys +
             out->chan_inuse;
  out->shrinks = s.shrinks.load();
  out->collections = s.collections.load();
  out->stack_released = stack_bytes_released();
  out->start_stack = default_start_stack();
}

copystack_growth_hook copystack_set_growth_hook(copystack_growth_hook hook,
                                                void *data) {
  g_hook_data.store(data);
  return g_hook.exchange(hook);
}

} // extern "C"
