// task_frames.cc: a task's call stack (task_frames.h).
#include "sched/task_frames.h"

#include "core/copy.h"
#include "core/frame_info.h"
#include "signal_frame.h" // the architecture's (runtime/src/arch/)

namespace copystack_rt {

static void add(TaskFrames &f, uintptr_t pc) {
  if (f.n < kMaxTaskFrames)
    f.pc[f.n++] = pc;
  else
    ++f.more;
}

// From pc (a return address, or an interrupted pc + 1), whose frame's
// %rsp and %rbp there are sp and fp, up the task's frames, staying inside
// [lo, hi): each frame by the unwind tables' CFA rule at its pc - 1
// (frame_info.h unwind_step), as the relocation walks them; where the
// tables have no rule this reader follows, that frame is taken as one
// with a frame pointer (fp: the caller's %rbp, then the return address).
// The words of [lo, hi) are read at shift bytes from their addresses (a
// compacted task's block; else 0). The first frame's return address may
// be lr's (an interrupted leaf on AArch64: its CFA is its sp then).
void walk_frames(TaskFrames &f, uintptr_t pc, uintptr_t sp, uintptr_t fp,
                 uintptr_t lo, uintptr_t hi, intptr_t shift, uintptr_t lr) {
  const auto end = reinterpret_cast<uintptr_t>(__copystack_task_return);
  for (uint64_t guard = 0; guard < (uint64_t(1) << 24); ++guard) {
    if (!pc || pc == end)
      return;
    add(f, pc);
    UnwindStep up;
    if (unwind_step(pc - 1, sp, fp, lo, hi, &up, shift, lr)) {
      if (up.cfa < sp || (up.cfa == sp && !up.by_lr))
        return; // frames only go up
      pc = up.ret, sp = up.cfa, fp = up.rbp, lr = 0;
      continue;
    }
    lr = 0;
    if (fp < lo || fp + 16 > hi || (fp & 7) || fp + 16 <= sp)
      return;
    const auto *frame = reinterpret_cast<const uintptr_t *>(fp + shift);
    pc = frame[1], sp = fp + 16, fp = frame[0];
  }
}

// A task the monitor preempted: the stub's frame (stub_fp, its frame
// pointer) holds the return address into the code that called it, and
// that code's frame pointer; after the signal (resume:
// __copystack_signal_resume), the stop record the handler wrote
// (signal_frame.h stopped_frame: the interrupted pc, taken as pc + 1 like
// a dump's interrupted frame, and its registers).
static void walk_preempted(TaskFrames &f, uintptr_t resume, uintptr_t stub_fp,
                           uintptr_t lo, uintptr_t hi) {
  const bool signal =
      resume == reinterpret_cast<uintptr_t>(__copystack_signal_resume);
  if (stub_fp < lo || (stub_fp & 7) ||
      stub_fp + (signal ? 32 : kPreemptFrameBytes) > hi)
    return;
  const auto *stub = reinterpret_cast<const uint64_t *>(stub_fp);
  add(f, resume);
  if (signal) {
    uintptr_t pc, sp, fp, lr;
    sigframe::stopped_frame(stub, &pc, &sp, &fp, &lr);
    walk_frames(f, pc, sp, fp, lo, hi, 0, lr);
  } else {
    walk_frames(f, stub[1], stub_fp + kPreemptFrameBytes, stub[0], lo, hi);
  }
}

// A suspended (held) task: from its switch frame. A compacted task's
// frames are in its block (core/copy.h), which stands for the top of the
// old range its saved stack addresses name.
void walk_suspended(TaskFrames &f, const Task *t) {
  const auto *sf = reinterpret_cast<const SwitchFrame *>(t->sp);
  if (t->compacted) {
    size_t used = compacted_used(t);
    uintptr_t lo = t->stack.hi - used; // where the switch frame stood
    walk_frames(f, switch_pc(sf), lo + sizeof(SwitchFrame), switch_fp(sf), lo, t->stack.hi,
         static_cast<intptr_t>(t->sp - lo));
    return;
  }
  if (t->sp < t->stack.lo || t->sp + sizeof(SwitchFrame) > t->stack.hi)
    return;
  if (switch_pc(sf) == reinterpret_cast<uintptr_t>(&__copystack_task_start)) {
    f.not_started = true;
    f.entry = switch_entry(sf) ==
                      reinterpret_cast<uintptr_t>(&__copystack_foreign_entry)
                  ? switch_arg0(sf)
                  : switch_entry(sf);
    return;
  }
  if (preempted_resume(switch_pc(sf))) {
    walk_preempted(f, switch_pc(sf), switch_fp(sf), t->stack.lo, t->stack.hi);
    return;
  }
  walk_frames(f, switch_pc(sf), t->sp + sizeof(SwitchFrame), switch_fp(sf), t->stack.lo,
       t->stack.hi);
}

// The failing thread's own task, running now.
void walk_current(TaskFrames &f, const Thread &th, const FrameStart &at) {
  uintptr_t pc = at.pc, sp = at.sp, fp = at.fp;
  if (!pc && !foreign_caller(th, &pc, &sp, &fp))
    return;
  walk_frames(f, pc, sp, fp, th.task_lo, th.task_hi, 0, at.pc ? at.lr : 0);
}

} // namespace copystack_rt
