// task.cc: creating tasks and running them on the calling thread.
#include "split_stack_notes.h"
#include "task.h"
#include "config.h"
#include "fatal.h"
#include "frame_info.h"
#include "pin.h"
#include "stats.h"
#include "thread.h"
#include "verify.h"

#include "copystack/abi.h"
#include "copystack/copystack.h"

#include <atomic>

extern "C" {
__thread copystack::Thread __copystack_thread
    __attribute__((tls_model("initial-exec")));
}

namespace copystack {

static std::atomic<uint64_t> g_next_id{1};

uintptr_t limit_for(const Stack &s) {
  // Stress and verify modes make every prologue check fail, so that every
  // instrumented call enters the runtime (growth.cc decides what to do).
  if (config().stress || config().verify)
    return ~uintptr_t(0);
  return s.lo + COPYSTACK_GUARD;
}

Task *create_task(uintptr_t entry, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                  size_t start_size) {
  auto *t = new Task;
  t->id = g_next_id.fetch_add(1);
  t->stack = allocate_stack(round_stack_size(start_size));
  // The first switch into the task pops a switch frame whose return address
  // is __copystack_task_start; r12..r15 and rbx carry what it needs.
  uintptr_t top = t->stack.hi - 8; // keeps the entry call 16-byte aligned
  auto *frame = reinterpret_cast<uintptr_t *>(top - SWITCH_FRAME_BYTES);
  frame[SWITCH_R15 / 8] = a1;
  frame[SWITCH_R14 / 8] = a0;
  frame[SWITCH_R13 / 8] = entry;
  frame[SWITCH_R12 / 8] = reinterpret_cast<uintptr_t>(t);
  frame[SWITCH_RBX / 8] = a2;
  frame[SWITCH_RBP / 8] = 0;
  frame[SWITCH_RET / 8] = reinterpret_cast<uintptr_t>(&__copystack_task_start);
  t->sp = reinterpret_cast<uintptr_t>(frame);
  t->scrub_low = t->stack.lo;
  stats().tasks_created++;
  return t;
}

void destroy_task(Task *t) {
  release_stack(t->stack);
  delete t;
}

void run_to_completion(Task *t) {
  prepare_verify_thread();
  Thread &th = __copystack_thread;
  Thread saved = th;
  uintptr_t saved_limit = read_limit();
  th.task = t;
  th.task_lo = t->stack.lo;
  th.task_hi = t->stack.hi;
  th.task_limit = limit_for(t->stack);
  load_pins(th, PinState{}); // the task's pinned area starts empty
  __copystack_switch(&th.sched_sp, t->sp, th.task_limit);
  CS_CHECK(t->done, "a task switched back to its runner before finishing");
  PinState left = save_pins(th);
  free_pins(left);
  th = saved;
  write_limit(saved_limit);
}

} // namespace copystack

using namespace copystack;

extern "C" {

void copystack_run(void (*fn)(void *), void *arg) {
  auto entry = reinterpret_cast<uintptr_t>(fn);
  uintptr_t a0 = reinterpret_cast<uintptr_t>(arg), a1 = 0;
  if (!is_instrumented(reinterpret_cast<void *>(fn))) {
    // Foreign code never runs on a copyable stack: the task's first frame
    // hands it to the thread's own stack.
    a1 = a0;
    a0 = entry;
    entry = reinterpret_cast<uintptr_t>(&__copystack_foreign_call);
  }
  Task *t = create_task(entry, a0, a1, 0, config().start_stack);
  run_to_completion(t);
  destroy_task(t);
}

int copystack_main(int (*main_fn)(int, char **, char **), int argc,
                   char **argv, char **envp) {
  if (!is_instrumented(reinterpret_cast<void *>(main_fn)))
    return main_fn(argc, argv, envp);
  Task *t = create_task(reinterpret_cast<uintptr_t>(main_fn),
                        static_cast<uintptr_t>(argc),
                        reinterpret_cast<uintptr_t>(argv),
                        reinterpret_cast<uintptr_t>(envp),
                        config().start_stack);
  run_to_completion(t);
  int rc = static_cast<int>(t->result);
  destroy_task(t);
  return rc;
}

int copystack_in_task(void) { return __copystack_thread.task != nullptr; }

int copystack_current_stack(copystack_stack_info *out) {
  Thread &th = __copystack_thread;
  if (!th.task)
    return -1;
  out->lo = th.task->stack.lo;
  out->hi = th.task->stack.hi;
  out->size = th.task->stack.size();
  out->sp = th.foreign_sp;
  out->copies = th.task->copies;
  return 0;
}

size_t copystack_set_max_stack(size_t bytes) {
  if (bytes < COPYSTACK_MIN_STACK)
    bytes = COPYSTACK_MIN_STACK;
  return config().max_stack.exchange(bytes);
}

size_t copystack_max_stack(void) { return config().max_stack.load(); }

} // extern "C"
