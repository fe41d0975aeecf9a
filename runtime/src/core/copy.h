// copy.h: moving a task's stack (Go's copystack), and the two ways a walk
// of the moved frames starts.
//
// A stack moves in one of two states, each leaving the task's registers in
// a block on the stack itself:
//
//   - growing: the asking function's check called __morestack (or its
//     prologue called __copystack_stack_probe), which pushed every register
//     (MoreStackBlock, morestack.S). Under LLVM's prologue the function's
//     own frame does not exist yet, its arguments are still in registers
//     and in its caller's outgoing area. Under the own prologue (abi.h) the
//     check may also run after the frame is set up, when the block is a
//     call site in the function like any other (Asker::framed), and the
//     probe of a big frame runs after the prologue pushed the callee-saved
//     registers (Asker::pushed);
//   - suspended: __copystack_switch left the callee-saved registers, %rbp
//     and the return address into the task (SwitchFrame, switch.S).
//
// copy_stack does what both share: copy the used part to the top of a
// fresh stack, relocate it starting from the block (walk_from_morestack /
// walk_from_switch), install the new stack on the task, release the old
// one, count the copy. What differs (the thread's limit for a running task,
// the growth event, the suspended task's saved %rsp) stays with the caller:
// growth.cc and shrink.cc.
#ifndef COPYSTACK_CORE_COPY_H
#define COPYSTACK_CORE_COPY_H

#include "asm_offsets.h"
#include "frames.h"
#include "core/frame_info.h"
#include "core/relocate.h"
#include "sched/task.h"

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// The function that asked for a growth, and how far its frame stands.
struct Asker {
  const FrameInfo *fn = nullptr;
  // Bytes its prologue pushed between its return address and the block
  // (a probe's callee-saved registers); 0 at a check before the frame.
  uint32_t pushed = 0;
  // Of those, where the caller's %rbp is, from the block's end (its
  // caller_ret); -1: still in the register, in the block.
  int32_t rbp_at = -1;
  // Its frame is set up and the block is a call site in it (the own
  // prologue's check, placed after the frame): walked as any frame.
  bool framed = false;
  // Its registers may no longer be its arguments where the map says (the
  // own prologue's check and the probe): all of them range-checked, none
  // put back; its incoming stack arguments' size is its map's.
  bool args_unknown = false;
};

// Where the walk of a moved stack starts, for each block (at its new
// address). The asking function of a growth is known by its frame info,
// and LLVM's prologue loaded its stack-argument bytes into %r11.
WalkStart walk_from_morestack(MoreStackBlock *block, const Asker &asker);
WalkStart walk_from_switch(SwitchFrame *frame);

// A finished copy: where the block is now, and what the copy cost.
struct Copy {
  uintptr_t block = 0;
  size_t used = 0; // bytes copied
  uint64_t ns = 0;
};

enum class Block { kMoreStack, kSwitch };

// Copies the used part of t's stack, [block, t->stack.hi), to the top of a
// fresh stack of new_size bytes, relocates every described pointer starting
// from the block, and makes the fresh stack t's; the old one is released
// (to the shared pool when to_pool). Counts the bytes, time and pointers
// (the kind of copy, growth, move or shrink, is the caller's to count).
// asker: the asking function for a kMoreStack block, else null. src, when
// not 0: the used part's bytes are there instead, src + (old hi - block)
// standing for the old stack's top (a growth whose asker's frame reaches
// below the stack, frames.h place_block).
Copy copy_stack(Task *t, size_t new_size, uintptr_t block, Block kind,
                const Asker *asker, bool to_pool, uintptr_t src = 0);

// A growth's register block where the stack's copy reads it (frames.h,
// place_block): at, on the task's stack, or, when src is not 0, the
// address it stands for below the stack, its bytes and the used part's
// then in the buffer at src; regs: where its registers can be read now.
struct Placed {
  MoreStackBlock *regs;
  uintptr_t at;
  uintptr_t src;
};
Placed place_block(MoreStackBlock *b, const Stack &old);
void free_placed(const Placed &p);

// After a move, the lanes of the wide vector registers __morestack keeps
// apart from the block that point into the old stack move with it, when
// all (the asker's vector registers may carry pointers or are not known).
void relocate_wide(uint8_t *wide, bool all, const Stack &old,
                   const Stack &fresh);

// A parked task that keeps only its live bytes (Go has no such thing).
// compact_suspended copies the used part of suspended task t's stack,
// switch frame up, as it is to a heap block of exactly that size (and a
// header), and releases the stack: t->sp then points at the switch frame
// in the block (so whoever reads a suspended task's switch frame still
// can), t->stack keeps the old range (the addresses its words still name)
// and t->compacted is set. Nothing is relocated: until it runs again, the
// task's frames are bytes. expand_compacted, before the task runs, copies
// them to the top of a fresh stack of the old size and relocates them from
// the switch frame as a shrink would (reading the words put back from the
// block). The caller holds the task (kShrinking, or the worker about to
// run it).
void compact_suspended(Task *t, bool to_pool);
Copy expand_compacted(Task *t);

// Bytes the compacted tasks' blocks hold, and how many tasks are compacted.
uint64_t compacted_bytes();
uint64_t compacted_tasks();

// The used size of a compacted task's stack (its block's header).
inline size_t compacted_used(const Task *t) {
  return reinterpret_cast<const uint64_t *>(t->sp)[-1];
}

} // namespace copystack_rt

#endif
