// task_frames.h: a task's call stack as return addresses, walked as the
// relocation walks frames, for the task dump (dump.h) and the profiles
// (profile.h).
//
// A suspended task's saved %rsp is a switch frame (core/copy.h
// SwitchFrame) whose return address, %rsp after it and %rbp start the
// walk; a running task starts where it stands (a growth's block, a foreign
// call). Each frame is found by the unwind tables' CFA rule at its pc
// (frame_info.h unwind_step): functions without a frame pointer (leaves,
// libc functions in place, functions whose maps describe no locals) leave
// %rbp to their callers. Where the tables have no rule this reader
// follows, that frame is taken as one with a frame pointer. The walk stays
// on the task's stack and goes up to __copystack_task_return. It reads
// only, allocates nothing, and may run in a signal handler.
#ifndef COPYSTACK_TASK_FRAMES_H
#define COPYSTACK_TASK_FRAMES_H

#include "platform/fatal.h"
#include "platform/thread.h"
#include "sched/task.h"

#include <cstdint>

namespace copystack_rt {

// Frames kept per walk; a deeper stack (a runaway recursion) keeps its
// innermost frames and counts the others.
constexpr int kMaxTaskFrames = 48;

struct TaskFrames {
  uintptr_t pc[kMaxTaskFrames]; // return addresses (the innermost: a pc)
  int n = 0;
  uint64_t more = 0; // frames past kMaxTaskFrames
  bool not_started = false;
  uintptr_t entry = 0; // a task that has not started: its entry function
};

// From pc (a return address, or an interrupted pc + 1), whose frame's
// %rsp and %rbp there are sp and fp, up the task's frames inside [lo, hi),
// whose words are read at shift bytes from their addresses (a compacted
// task's block; else 0). lr: the return-address register of an
// interrupted innermost frame (fatal.h FrameStart), or 0.
void walk_frames(TaskFrames &f, uintptr_t pc, uintptr_t sp, uintptr_t fp,
                 uintptr_t lo, uintptr_t hi, intptr_t shift = 0,
                 uintptr_t lr = 0);

// A suspended task that the caller holds (or runs on this thread, between
// its switches): from its switch frame; a compacted one's from its block;
// a preempted one's through the preemption stub's frame. A task that has
// not started has no frames: not_started and entry say so.
void walk_suspended(TaskFrames &f, const Task *t);

// The task running on th, from its innermost frame at or, all 0, from its
// foreign call.
void walk_current(TaskFrames &f, const Thread &th, const FrameStart &at);

} // namespace copystack_rt

#endif
