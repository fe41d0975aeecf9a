/*
 * copystack.h: the C API of the copystack runtime.
 *
 * A task runs on a copyable stack that starts at 2 KiB. When an instrumented
 * function's frame does not fit, the runtime moves the task to a stack twice
 * the size and rewrites every pointer into the old one; code built with the
 * copystack plugin needs no changes for this. This header is for the parts a
 * program may want to see or steer: running tasks, limits, and what stack
 * growth cost.
 */
#ifndef COPYSTACK_COPYSTACK_H
#define COPYSTACK_COPYSTACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Running code on a copyable stack --------------------------------- */

/* Runs fn(arg) as a task on a fresh copyable stack on the calling thread and
 * returns when it finishes. fn should be instrumented (compiled with the
 * plugin); anything it calls that is not runs on the thread's own stack. */
void copystack_run(void (*fn)(void *), void *arg);

/* Runs a program's main as a task. The link option -Wl,--wrap=main (added by
 * the copystack-cc and copystack-c++ drivers) routes main through this. */
int copystack_main(int (*main_fn)(int, char **, char **), int argc,
                   char **argv, char **envp);

/* Nonzero while the caller runs as a task on a copyable stack. */
int copystack_in_task(void);

/* ---- Limits ------------------------------------------------------------ */

/* The largest stack one task may grow to; 1 GiB by default (Go's default on
 * 64-bit). Growing past it stops the program with a message that names the
 * limit and the function. Returns the previous value. Also COPYSTACK_MAX_STACK
 * in the environment (bytes, or with a K/M/G suffix). */
size_t copystack_set_max_stack(size_t bytes);
size_t copystack_max_stack(void);

/* ---- What stack growth costs ------------------------------------------ */

typedef struct copystack_stats {
  uint64_t tasks_created;
  uint64_t growths;        /* copies to a larger stack */
  uint64_t moves;          /* copies to a stack of the same size (stress) */
  uint64_t bytes_copied;   /* used bytes moved by all copies */
  uint64_t copy_ns;        /* time spent copying and relocating */
  uint64_t pointers_adjusted;
  uint64_t stack_inuse;    /* bytes of stacks held by live tasks */
  uint64_t stack_sys;      /* bytes of stack memory obtained from the OS */
} copystack_stats;

void copystack_get_stats(copystack_stats *out);

/* The current task's stack, for programs that want to look at themselves. */
typedef struct copystack_stack_info {
  uintptr_t lo, hi;        /* [lo, hi): the whole stack */
  uintptr_t sp;            /* the caller's stack pointer */
  size_t size;             /* hi - lo */
  uint64_t copies;         /* how many times this task's stack moved */
} copystack_stack_info;

/* Returns 0 and fills *out when called from a task, -1 otherwise. */
int copystack_current_stack(copystack_stack_info *out);

/* One stack copy, as the growth hook and the trace see it. */
typedef struct copystack_growth_event {
  uint64_t task_id;
  uint64_t copy_number;    /* 1 for the task's first copy */
  size_t old_size, new_size;
  size_t used;             /* bytes of frames live: old hi - the asking
                              function's stack pointer at its check */
  size_t headroom;         /* what was left: that stack pointer - old lo */
  size_t frame;            /* the frame the function asked for */
  const char *function;    /* the asking function's symbol name */
  uint64_t ns;             /* time the copy took */
  int forced;              /* 1 when stress mode moved a stack that fit */
} copystack_growth_event;

typedef void (*copystack_growth_hook)(const copystack_growth_event *ev,
                                      void *data);

/* Calls hook(ev, data) after every copy, on the thread's own stack (the
 * hook may print). Returns the previous hook. NULL turns it off. The trace
 * switch COPYSTACK_TRACE=1 prints the same events to stderr. */
copystack_growth_hook copystack_set_growth_hook(copystack_growth_hook hook,
                                                void *data);

#ifdef __cplusplus
}
#endif

#endif /* COPYSTACK_COPYSTACK_H */
