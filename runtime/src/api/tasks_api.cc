// tasks_api.cc: the C API's task entry points (copystack.h, "Running code on
// a copyable stack", "Tasks"). Task creation (task.h) and the scheduler
// (scheduler.h) meet here, not in each other.
#include "platform/split_stack_notes.h"
#include "core/frame_info.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/thread.h"
#include "sched/scheduler.h"
#include "sched/task.h"

#include "copystack/copystack.h"

using namespace copystack_rt;

namespace {

// The call site that started a task, for "created by" in the task dump.
// From a task, the API runs behind the foreign-call trampoline, whose frame
// on the task stack holds the instrumented caller's return address
// (thread.h foreign_caller).
// Outside a task, instrumented code calls through a thunk the trampoline
// jumps to (passes/ForeignCalls.cpp), which keeps a frame pointer and
// returns right after the call ("pop %rbp; ret", or "leave; ret"): then
// the call site is the thunk's return address, in the frame its %rbp
// (frame) names; this file keeps frame pointers so that frame is known.
// Otherwise the API function's own return address.
uintptr_t caller_pc(void *return_address, void *frame) {
  const Thread &th = __copystack_thread;
  uintptr_t pc, sp, fp;
  if (th.task && foreign_caller(th, &pc, &sp, &fp))
    return pc;
  auto *ra = static_cast<const uint8_t *>(return_address);
  if ((ra[0] == 0x5d || ra[0] == 0xc9) && ra[1] == 0xc3 && frame)
    return static_cast<const uintptr_t *>(frame)[1];
  return reinterpret_cast<uintptr_t>(return_address);
}

} // namespace

// The caller's return address and frame pointer, in an API function.
#define CALLER_PC()                                                            \
  caller_pc(__builtin_return_address(0),                                      \
            *static_cast<void **>(__builtin_frame_address(0)))

extern "C" {

void copystack_run(void (*fn)(void *), void *arg) {
  if (!fn)
    fatal("copystack_run: the function is null");
  Task *t = create_task_for(fn, arg);
  t->spawn_pc = CALLER_PC();
  run_bound(t);
  destroy_task(t);
}

void copystack_go(void (*fn)(void *), void *arg) {
  if (!fn)
    fatal("copystack_go: the function is null");
  Task *t = create_task_for(fn, arg);
  t->spawn_pc = CALLER_PC();
  spawn(t);
}

void copystack_go_sized(void (*fn)(void *), void *arg, size_t stack_bytes) {
  if (!fn)
    fatal("copystack_go_sized: the function is null");
  Task *t = create_task_for(fn, arg, stack_bytes);
  t->spawn_pc = CALLER_PC();
  spawn(t);
}

void *__copystack_go_prepare(void (*fn)(void *), void **closure) {
  return __copystack_go_prepare_sized(fn, closure, 0);
}

void *__copystack_go_prepare_sized(void (*fn)(void *), void **closure,
                                   size_t stack_bytes) {
  if (!fn || !closure)
    fatal("copystack::go: the task's entry or closure is null");
  Task *t = create_closure_task(fn, stack_bytes);
  *closure = closure_of(t);
  return t;
}

void __copystack_go_commit(void *task) {
  if (!task)
    fatal("copystack::go: the task to start is null");
  auto *t = static_cast<Task *>(task);
  t->spawn_pc = CALLER_PC();
  spawn(t);
}

void __copystack_go_commit_at(void *task, void *site) {
  if (!task)
    fatal("copystack::go: the task to start is null");
  auto *t = static_cast<Task *>(task);
  t->spawn_pc = reinterpret_cast<uintptr_t>(site);
  spawn(t);
}

void __copystack_misuse(const char *what) { fatal("%s", what); }

int copystack_main(int (*main_fn)(int, char **, char **), int argc,
                   char **argv, char **envp) {
  if (!main_fn)
    fatal("copystack_main: the main function is null");
  if (!is_instrumented(reinterpret_cast<void *>(main_fn)))
    return main_fn(argc, argv, envp);
  Task *t = create_task(reinterpret_cast<uintptr_t>(main_fn),
                        static_cast<uintptr_t>(argc),
                        reinterpret_cast<uintptr_t>(argv),
                        reinterpret_cast<uintptr_t>(envp),
                        default_start_stack());
  run_main(t); // exits with main's result
}

int copystack_in_task(void) { return __copystack_thread.task != nullptr; }

uint64_t copystack_num_tasks(void) { return live_tasks(); }

} // extern "C"
