//===- LoopPolls.h - loops that never reach a prologue check poll ---------===//
//
// Preemption (Go 1.14's): the runtime's monitor asks a task that has run for
// a time slice to yield by storing COPYSTACK_PREEMPT_LIMIT in its thread's
// split-stack limit (abi.h), so that its next prologue check fails, and by
// a signal that stops the task at any instruction of instrumented code
// (runtime/src/sched/preempt_signal.h). Loops need no poll for the signal:
// by default only functions built with ThreadSanitizer, where the runtime
// sends none, get polls (-copystack-loop-polls=1 gives them to every
// function, =0 to none; copystack-cc's --copystack-preempt=polls|signal).
// A loop whose iterations call no instrumented function never checks; at
// each of its back edges it then gets a poll of the same word, an asm goto:
//
//     callbr void asm sideeffect "cmpq $$-2, %fs:0x70; je ${0:l}", "!i"()
//         to label %latch.polled [label %cs.preempt]
//   cs.preempt:
//     call preserve_mostcc void @__copystack_preempt() cold
//     br label %latch.polled
//
// The poll is one compare of a thread-control-block word in memory with a
// constant, and a branch (a volatile load, which plain IR would need, is a
// load and a compare: the backend folds no volatile load into a compare);
// the stub keeps every register but %r11 (preserve_most), so the rare call
// costs the loop no registers. scripts/bench-overhead measures the polls.
// __copystack_preempt parks the task, which resumes on the same thread with
// its stack where it was (runtime/src/sched/preempt.h), so the call is not
// a safepoint: the values the loop keeps in registers across it, which the
// stub saves on its own frame, need no description.
//
// A function that calls nothing else and has no floating-point or vector
// value gets its polls as one asm each, the stub's call inside it:
//
//     cmpq $-2, %fs:0x70; jne 1f; call *__copystack_preempt@GOTPCREL(%rip); 1:
//
// so that it stays a leaf (no frame pointer; no frame and no prologue check
// when it needs no stack): Attributes.cpp's makesNoCalls skips calls marked
// names::LeafPollMD. The asm clobbers %r11 and the vector registers (the
// stub keeps the general registers only; the function has no vector value
// to lose) and the function gets no red zone.
//
// A back edge needs no poll when a call that surely checks (a function of
// the module that calls something, so has a nonzero frame or a tail call,
// and so a prologue check) or a park runs on every iteration (a leaf may
// have no check, and a dispatch stub may be bound to another object's
// leaf: those do not count; before, a loop around a call of a leaf was
// never preempted): a block with one
// dominates the edge's source and is dominated by its target. Nor does the
// back edge of an innermost loop that makes no call and whose trips have a
// small constant bound (scalar evolution's), at most 65,536 instructions a
// run: over a fixed-size array, the levels of a tree cursor counted in a
// byte. It ends soon and the loop around it polls. Cycles that are not
// natural loops always get one.
//
// It runs on each instrumented function after ForeignCalls (which leaves
// the calls that reach instrumented code plain) and before FrameMaps.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_LOOPPOLLS_H
#define COPYSTACK_PASSES_LOOPPOLLS_H

#include "Policy.h"

#include "llvm/IR/Function.h"

namespace copystack {

/// Adds a poll to each back edge of F that needs one. Returns how many.
unsigned insertLoopPolls(llvm::Function &F, const Policy &P);

} // namespace copystack

#endif
