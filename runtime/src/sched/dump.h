// dump.h: the task dump (Go's traceback of every goroutine), printed by
// every fatal error (platform/fatal.h calls it) and on SIGQUIT.
//
// For each task: its id, its state and what it waits for and since when,
// its frames, symbolized and demangled, and the call that started it:
//
//     task 7 [chan receive, 3 s]:
//       #0 copystack_chan_recv at .../copystack.h:482
//       #1 consumer at .../pipeline.c:14
//       created by main at .../pipeline.c:31
//
// Frames: a suspended task's saved %rsp is a switch frame (core/copy.h
// SwitchFrame) whose return address, %rsp after it and %rbp start the
// walk; the running task of the failing thread starts at its foreign call
// (or where a growth stopped, or the instruction a signal interrupted).
// Each frame is found by the unwind tables' CFA rule at its pc
// (frame_info.h unwind_step), as the relocation finds them: functions
// without a frame pointer (leaves, libc functions in place, functions
// whose maps describe no locals) leave %rbp to their callers. Where the
// tables have no rule this reader follows, that frame is taken as one
// with a frame pointer. The walk stays on the task's stack and goes up to
// __copystack_task_return. A task running on another thread is listed
// without frames; one in a foreign call there (a call that blocks its
// worker) says so, with the function that made the call. Every task the dump looks at is held (task.h hold_task)
// and never given back: the program is ending.
//
// Names and file:line come from llvm-symbolizer (COPYSTACK_SYMBOLIZER; run
// once for all addresses), or without it from the dynamic symbols and the
// frame maps. The dump writes with write(2) and keeps its tables in
// mmap'ed memory: it runs in dying processes and in a signal handler.
#ifndef COPYSTACK_DUMP_H
#define COPYSTACK_DUMP_H

#include "platform/fatal.h"

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// Prints the tasks to stderr at traceback level `level` (config.h
// Traceback): the failing thread's task, from its innermost frame at
// (fatal.h FrameStart) or, all 0, its foreign call; then, at
// kTracebackAll and above, every other task.
void dump_tasks_for_fatal(int level, const FrameStart &at);

// SIGQUIT dumps every task and exits with status 2, as in Go; installed
// when the scheduler starts, unless the program ignores SIGQUIT or has a
// handler of its own.
void install_quit_handler();

// An exception nothing catches is a fatal error with the dump (instead of
// libstdc++'s abort()); installed with the quit handler, unless the
// program has a terminate handler of its own (terminate.cc).
void install_terminate_handler();

// What a task waits for, as the dump says it (Go's wait reasons: "chan
// receive", "IO wait", "pthread_cond_wait"...): r is a WaitReason or
// kWaitCall | a call's kind (sched/task.h); buf may hold the name.
const char *wait_reason_name(uint8_t r, char *buf, size_t len);

} // namespace copystack_rt

#endif
