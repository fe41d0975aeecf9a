/*
 * thread_offsets.h: the offsets of copystack_rt::Thread and Task fields the
 * assembly of every architecture reads (each arch's asm_offsets.h includes
 * this). platform/thread.h and sched/task.h check them with static_assert.
 */
#ifndef COPYSTACK_THREAD_OFFSETS_H
#define COPYSTACK_THREAD_OFFSETS_H

#include "copystack/abi.h"

/* copystack_rt::Thread (thread.h), reached through the initial-exec TLS
 * symbol __copystack_thread. */
#define THREAD_SCHED_SP 0    /* the scheduler's saved stack pointer while a task runs */
#define THREAD_TASK_LIMIT 8  /* the limit word while the task runs its own code */
/* the running task (or 0) and its stack: also read by copystack.h */
#define THREAD_TASK COPYSTACK_THREAD_TASK
#define THREAD_TASK_LO COPYSTACK_THREAD_TASK_LO
#define THREAD_TASK_HI COPYSTACK_THREAD_TASK_HI
#define THREAD_FOREIGN_SP 40 /* the task's stack pointer in a foreign call, or 0 */
/* 48..79: the pinned area (abi.h, COPYSTACK_THREAD_PIN_*) */
#define THREAD_PARK_FN 80    /* what the scheduler runs after a task parked */
#define THREAD_PARK_ARG 88
#define THREAD_FOREIGN_SEQ 96 /* foreign calls started on this thread */
#define THREAD_RUN_SEQ 112   /* tasks this thread started running */
#define THREAD_PREEMPT_SEQ 120 /* the run the monitor asked to yield */

/* copystack_rt::Task (task.h) */
#define TASK_SP 0            /* saved stack pointer while suspended */
#define TASK_RESULT 8        /* the entry function's return value */
#define TASK_DONE 16         /* byte: 1 once the entry function returned */
#define TASK_ROOM_MISSES 159 /* byte: failed in-place room tests (abi.h) */

#endif
