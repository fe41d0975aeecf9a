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
#include "core/frame_info.h"
#include "core/relocate.h"
#include "sched/task.h"

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// The register block __morestack pushes (asm_offsets.h MS_*), from its
// lowest address.
struct MoreStackBlock {
  uint64_t xmm[16]; // xmm0-7, two words each
  uintptr_t r15, r14, r13, r12, r11, r10, r9, r8;
  uintptr_t rdi, rsi, rdx, rcx, rbx, rax, rbp;
  uintptr_t ret;        // into the asking function's slow path (its "ret")
  uintptr_t caller_ret; // the asking function's return address
};

static_assert(offsetof(MoreStackBlock, xmm) == MS_XMM0, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r15) == MS_R15, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r14) == MS_R14, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r13) == MS_R13, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r12) == MS_R12, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r11) == MS_R11, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r10) == MS_R10, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r9) == MS_R9, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r8) == MS_R8, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rdi) == MS_RDI, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rsi) == MS_RSI, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rdx) == MS_RDX, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rcx) == MS_RCX, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rbx) == MS_RBX, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rax) == MS_RAX, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rbp) == MS_RBP, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, ret) == MS_RET, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, caller_ret) == MS_CALLER_RET,
              "asm_offsets.h");
static_assert(MS_CALLER_RET == MS_BLOCK_BYTES, "asm_offsets.h");
static_assert(MS_BLOCK_BYTES == COPYSTACK_MORESTACK_BLOCK, "abi.h");

// The frame __copystack_switch leaves on a stack it switches away from
// (asm_offsets.h SWITCH_*), from the saved %rsp up.
struct SwitchFrame {
  // The thread state that belongs to whoever switched out (a task, or the
  // worker's scheduler), put back when it is switched in again: MXCSR and
  // the x87 control word (callee-saved in the System V ABI, and a switch is
  // a call), the x87 exception flags, and errno (docs/tasks.md, "What belongs to a task").
  uint32_t mxcsr;
  uint16_t fpucw, fpusw; // x87 control word; status word (its flags)
  int32_t err;
  uint32_t unused32;
  uintptr_t r15, r14, r13, r12, rbx, rbp;
  uintptr_t ret; // where the task resumes
};

static_assert(offsetof(SwitchFrame, mxcsr) == SWITCH_MXCSR, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, fpucw) == SWITCH_FPUCW, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, fpusw) == SWITCH_FPUSW, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, err) == SWITCH_ERRNO, "asm_offsets.h");

static_assert(offsetof(SwitchFrame, r15) == SWITCH_R15, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, r14) == SWITCH_R14, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, r13) == SWITCH_R13, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, r12) == SWITCH_R12, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, rbx) == SWITCH_RBX, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, rbp) == SWITCH_RBP, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, ret) == SWITCH_RET, "asm_offsets.h");
static_assert(sizeof(SwitchFrame) == SWITCH_FRAME_BYTES, "asm_offsets.h");

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
// asker: the asking function for a kMoreStack block, else null.
Copy copy_stack(Task *t, size_t new_size, uintptr_t block, Block kind,
                const Asker *asker, bool to_pool);

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
