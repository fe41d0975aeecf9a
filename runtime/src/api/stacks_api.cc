// stacks_api.cc: the C API of stacks: the current task's stack, limits,
// collections, start sizes and their policy (copystack.h).
#include "platform/split_stack_notes.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/thread.h"
#include "sched/collect.h"
#include "sched/learn.h"
#include "sched/task.h"

#include "copystack/abi.h"
#include "copystack/copystack.h"

using namespace copystack_rt;

extern "C" {

int copystack_current_stack(copystack_stack_info *out) {
  if (!out)
    fatal("copystack_current_stack: the output structure is null");
  Thread &th = __copystack_thread;
  if (!th.task)
    return -1;
  out->lo = th.task->stack.lo;
  out->hi = th.task->stack.hi;
  out->size = th.task->stack.size();
  out->sp = th.foreign_sp;
  out->copies = th.task->copies;
  out->used = out->hi - out->sp;
  out->room = out->sp > out->lo + COPYSTACK_GUARD
                  ? out->sp - (out->lo + COPYSTACK_GUARD)
                  : 0;
  out->max_size = config().max_stack.load();
  out->remaining =
      out->max_size > out->used ? out->max_size - out->used : 0;
  return 0;
}

size_t copystack_set_max_stack(size_t bytes) {
  if (bytes < COPYSTACK_MIN_STACK)
    bytes = COPYSTACK_MIN_STACK;
  return config().max_stack.exchange(bytes);
}

size_t copystack_max_stack(void) { return config().max_stack.load(); }

void copystack_collect(void) { collect(true, true); }

void copystack_get_policy(copystack_policy *out) {
  if (!out)
    fatal("copystack_get_policy: the output structure is null");
  Config &c = config();
  out->shrink = c.shrink.load();
  out->adaptive_start = c.adaptive.load();
  out->learn_start = c.learn.load();
  out->release_memory = c.release.load();
  out->compact_parked = c.compact.load();
  out->collect_interval_ms = c.collect_ms.load();
}

void copystack_set_policy(const copystack_policy *p) {
  if (!p)
    fatal("copystack_set_policy: the policy is null");
  Config &c = config();
  c.shrink.store(p->shrink != 0);
  c.adaptive.store(p->adaptive_start != 0);
  c.learn.store(p->learn_start != 0);
  c.release.store(p->release_memory != 0);
  c.compact.store(p->compact_parked != 0);
  c.collect_ms.store(p->collect_interval_ms);
}

size_t copystack_set_start_stack(size_t bytes) {
  if (bytes < COPYSTACK_MIN_STACK || bytes > kMaxStartSize * 1024)
    fatal("copystack_set_start_stack(%zu): from %d bytes to 1 GiB", bytes,
          COPYSTACK_MIN_STACK);
  return config().start_stack.exchange(bytes);
}

size_t copystack_start_stack(void) { return default_start_stack(); }

} // extern "C"
