// frames.h (x86-64): what the runtime's assembly leaves on a stack, as C++
// structs (asm_offsets.h's layouts, checked here), the registers the walk
// of a moved stack tracks, and how the generic code reads a block's and a
// switch frame's pc, stack pointer and frame pointer. Every architecture
// has its own frames.h in its folder of runtime/src/arch/.
#ifndef COPYSTACK_ARCH_FRAMES_H
#define COPYSTACK_ARCH_FRAMES_H

#include "asm_offsets.h"
#include "platform/cpu.h"

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// The System V argument registers, in order (a frame map's gpr_mask bits).
enum ArgReg { kRdi, kRsi, kRdx, kRcx, kR8, kR9, kNumArgRegs };

// Callee-saved registers other than %rbp, in this order everywhere.
enum Csr { kRbx, kR12, kR13, kR14, kR15, kNumCsr };

// The frame model (core/frame_info.h): DWARF's numbers of the frame
// pointer (%rbp), the stack pointer and the return address column, the
// registers the unwind-table reader tracks (below kDwRegs), and where the
// return address is when the tables have no rule for it (CFA - 8: the
// call pushed it). A frame pointer points at the frame record, the
// caller's %rbp then the return address, always 16 bytes below the CFA.
constexpr unsigned kDwFp = 6, kDwSp = 7, kDwRa = 16, kDwRegs = 17;
constexpr int64_t kRaDefault = -8;

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

// The asking function's pc (its slow path's "ret"), its stack pointer at
// the check (where the block ends) and its frame pointer.
inline uintptr_t block_pc(const MoreStackBlock *b) { return b->ret; }
inline uintptr_t block_sp(const MoreStackBlock *b) {
  return reinterpret_cast<uintptr_t>(&b->caller_ret);
}
inline uintptr_t block_fp(const MoreStackBlock *b) { return b->rbp; }
// The size-of-frame word LLVM's prologue passes, and the stack-argument
// bytes it passes beside it (abi.h).
inline uintptr_t block_frame_word(const MoreStackBlock *b) { return b->r10; }
inline uintptr_t block_arg_bytes(const MoreStackBlock *b) { return b->r11; }
// A probe's frame size (__copystack_stack_probe, %rax).
inline uintptr_t block_probe_bytes(const MoreStackBlock *b) { return b->rax; }
// Whether pc, a block's return address, is a check's: the one-byte "ret"
// that follows the call of __morestack in every prologue.
inline bool is_check_return(uintptr_t pc) {
  return *reinterpret_cast<const uint8_t *>(pc) == 0xc3;
}

// The bytes of the wide vector registers __morestack keeps apart from the
// block, which a yield at a check puts below it (morestack.S): ymm0-7 or
// zmm0-7 (__copystack_vector_width, platform/cpu.h), none without AVX.
inline size_t yield_wide_bytes() { return __copystack_vector_width ? 512 : 0; }

// The bytes a yield at a check needs below the block (growth.cc): the wide
// registers, __copystack_preempt's registers and the switch frame of the
// park (under 200 bytes, switch.S), its return address, and some slack.
inline size_t yield_room_bytes() { return yield_wide_bytes() + 256; }

// A suspended task's pc, frame pointer, and what task.cc's first switch
// frame carries: the entry function and its first argument.
inline uintptr_t switch_pc(const SwitchFrame *f) { return f->ret; }
inline uintptr_t switch_fp(const SwitchFrame *f) { return f->rbp; }
inline uintptr_t switch_entry(const SwitchFrame *f) { return f->r13; }
inline uintptr_t switch_arg0(const SwitchFrame *f) { return f->r14; }

// The switch frame of a new task below its stack's top hi: the first
// switch into it returns into start (__copystack_task_start) with r12 the
// Task, r13 the entry function and r14, r15, rbx its arguments. A new task
// starts with errno 0 and the floating-point environment of the code that
// spawns it, as a new thread does (POSIX).
inline SwitchFrame *first_switch_frame(uintptr_t hi, uintptr_t start,
                                       uintptr_t task, uintptr_t entry,
                                       uintptr_t a0, uintptr_t a1,
                                       uintptr_t a2) {
  uintptr_t top = hi - 8; // keeps the entry call 16-byte aligned
  auto *f = reinterpret_cast<SwitchFrame *>(top - SWITCH_FRAME_BYTES);
  f->r15 = a1;
  f->r14 = a0;
  f->r13 = entry;
  f->r12 = task;
  f->rbx = a2;
  f->rbp = 0;
  f->ret = start;
  f->mxcsr = __builtin_ia32_stmxcsr();
  uint16_t cw;
  __asm__ volatile("fnstcw %0" : "=m"(cw));
  f->fpucw = cw;
  uint16_t sw;
  __asm__ volatile("fnstsw %0" : "=m"(sw));
  f->fpusw = sw;
  f->err = 0;
  f->unused32 = 0;
  return f;
}

} // namespace copystack_rt

#endif
