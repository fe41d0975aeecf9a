// tasks_api.cc: the C API's task entry points (copystack.h, "Running code on
// a copyable stack", "Tasks"). Task creation (task.h) and the scheduler
// (scheduler.h) meet here, not in each other.
#include "platform/split_stack_notes.h"
#include "core/frame_info.h"
#include "platform/config.h"
#include "platform/thread.h"
#include "sched/scheduler.h"
#include "sched/task.h"

#include "copystack/copystack.h"

using namespace copystack_rt;

extern "C" {

void copystack_run(void (*fn)(void *), void *arg) {
  Task *t = create_task_for(fn, arg);
  run_bound(t);
  destroy_task(t);
}

void copystack_go(void (*fn)(void *), void *arg) {
  spawn(create_task_for(fn, arg));
}

void copystack_go_sized(void (*fn)(void *), void *arg, size_t stack_bytes) {
  spawn(create_task_for(fn, arg, stack_bytes));
}

void *__copystack_go_prepare(void (*fn)(void *), void **closure) {
  return __copystack_go_prepare_sized(fn, closure, 0);
}

void *__copystack_go_prepare_sized(void (*fn)(void *), void **closure,
                                   size_t stack_bytes) {
  Task *t = create_closure_task(fn, stack_bytes);
  *closure = closure_of(t);
  return t;
}

void __copystack_go_commit(void *task) { spawn(static_cast<Task *>(task)); }

int copystack_main(int (*main_fn)(int, char **, char **), int argc,
                   char **argv, char **envp) {
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
