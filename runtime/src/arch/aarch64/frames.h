// frames.h (AArch64): what the runtime's assembly leaves on a stack, as C++
// structs (asm_offsets.h's layouts, checked here), the registers the walk
// of a moved stack tracks, and how the generic code reads a block's and a
// switch frame's pc, stack pointer and frame pointer (x86_64/frames.h is
// the model).
#ifndef COPYSTACK_ARCH_FRAMES_H
#define COPYSTACK_ARCH_FRAMES_H

#include "asm_offsets.h"

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// The AAPCS64 argument registers x0-x7 (a frame map's gpr_mask bits).
enum ArgReg { kX0, kX1, kX2, kX3, kX4, kX5, kX6, kX7, kNumArgRegs };

// Callee-saved registers other than the frame pointer x29.
enum Csr { kX19, kX20, kX21, kX22, kX23, kX24, kX25, kX26, kX27, kX28,
           kNumCsr };

// The frame model (core/frame_info.h, x86_64/frames.h): x29 the frame
// pointer, sp, x30 the return address column, no rule-less return address
// (at a call site the function saved x30 where its tables say). The frame
// record (the caller's x29, then x30) is at x29, which is the bottom of
// the callee-saved area: CFA - x29 varies from function to function.
constexpr unsigned kDwFp = 29, kDwSp = 31, kDwRa = 30, kDwRegs = 32;
constexpr int64_t kRaDefault = 0;

// The register block __morestack saves (asm_offsets.h MS_*), from its
// lowest address.
struct MoreStackBlock {
  uint64_t q[16];     // q0-q7, two words each
  uintptr_t x[16];    // x0-x15
  uintptr_t x18;
  uintptr_t csr[kNumCsr]; // x19-x28
  uintptr_t fp;       // x29
  uintptr_t sp;       // the asking function's sp at its check
  uintptr_t ret;      // x30 at the check: the address of its udf
};

static_assert(offsetof(MoreStackBlock, q) == MS_Q0, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, x) == MS_X0, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, x18) == MS_X18, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, fp) == MS_X29, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, ret) == MS_RET, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, sp) == MS_SP, "asm_offsets.h");
static_assert(sizeof(MoreStackBlock) == MS_BLOCK_BYTES, "asm_offsets.h");
static_assert(MS_BLOCK_BYTES == COPYSTACK_MORESTACK_BLOCK, "abi.h");

// The frame __copystack_switch leaves on a stack it switches away from
// (asm_offsets.h SWITCH_*): the thread state of the side that switched out
// (the floating-point control and status registers, errno), then what
// AAPCS64 keeps across a call.
struct SwitchFrame {
  uint32_t fpcr, fpsr;
  int32_t err;
  uint32_t unused32;
  uint64_t d[8];          // d8-d15
  uintptr_t csr[kNumCsr]; // x19-x28
  uintptr_t fp;           // x29
  uintptr_t ret;          // x30: where the task resumes
};

static_assert(offsetof(SwitchFrame, fpcr) == SWITCH_FPCR, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, fpsr) == SWITCH_FPSR, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, err) == SWITCH_ERRNO, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, csr) == SWITCH_X19, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, fp) == SWITCH_X29, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, ret) == SWITCH_RET, "asm_offsets.h");
static_assert(offsetof(SwitchFrame, d) == SWITCH_D8, "asm_offsets.h");
static_assert(sizeof(SwitchFrame) == SWITCH_FRAME_BYTES, "asm_offsets.h");

// The asking function's pc (its check's udf), its sp at the check and its
// frame pointer.
inline uintptr_t block_pc(const MoreStackBlock *b) { return b->ret; }
inline uintptr_t block_sp(const MoreStackBlock *b) { return b->sp; }
inline uintptr_t block_fp(const MoreStackBlock *b) { return b->fp; }
// Only the own check exists on AArch64 (LLVM has no split-stack prologue
// there), after the frame; its stack-argument bytes are the immediate of
// the udf that follows its call of __morestack (0xffff: that many or
// more). No probe either.
inline uintptr_t block_frame_word(const MoreStackBlock *) {
  return COPYSTACK_OWN_CHECK;
}
inline uintptr_t block_arg_bytes(const MoreStackBlock *b) {
  return *reinterpret_cast<const uint32_t *>(b->ret) & 0xffff;
}
inline uintptr_t block_probe_bytes(const MoreStackBlock *) { return 0; }
// Whether pc, a block's return address, is a check's: a udf (its top 16
// bits zero) after the call of __morestack.
inline bool is_check_return(uintptr_t pc) {
  return (*reinterpret_cast<const uint32_t *>(pc) >> 16) == 0;
}

// The bytes of the vector registers __morestack keeps apart from the block
// (q8-q31 whole), which a yield at a check puts below it (morestack.S).
inline size_t yield_wide_bytes() { return MS_WIDE_BYTES; }

// The bytes a yield at a check needs below the block (growth.cc): q8-q31,
// then __copystack_preempt's 160-byte frame and the park's 176-byte switch
// frame (switch.S: 336 bytes, where x86-64 takes under 200), with slack
// for a 16-byte aligned frame more.
inline size_t yield_room_bytes() { return yield_wide_bytes() + 352; }

// A suspended task's pc, frame pointer, and what task.cc's first switch
// frame carries: the entry function (x20) and its first argument (x21).
inline uintptr_t switch_pc(const SwitchFrame *f) { return f->ret; }
inline uintptr_t switch_fp(const SwitchFrame *f) { return f->fp; }
inline uintptr_t switch_entry(const SwitchFrame *f) { return f->csr[kX20]; }
inline uintptr_t switch_arg0(const SwitchFrame *f) { return f->csr[kX21]; }

// The switch frame of a new task below its stack's top hi: the first
// switch into it returns into start (__copystack_task_start) with x19 the
// Task, x20 the entry function and x21-x23 its arguments. A new task
// starts with errno 0 and the floating-point control of the code that
// spawns it (its status flags too), as a new thread does (POSIX).
inline SwitchFrame *first_switch_frame(uintptr_t hi, uintptr_t start,
                                       uintptr_t task, uintptr_t entry,
                                       uintptr_t a0, uintptr_t a1,
                                       uintptr_t a2) {
  auto *f = reinterpret_cast<SwitchFrame *>(hi - SWITCH_FRAME_BYTES);
  for (uintptr_t &r : f->csr)
    r = 0;
  for (uint64_t &d : f->d)
    d = 0;
  f->csr[kX19] = task;
  f->csr[kX20] = entry;
  f->csr[kX21] = a0;
  f->csr[kX22] = a1;
  f->csr[kX23] = a2;
  f->fp = 0;
  f->ret = start;
  uint64_t fpcr, fpsr;
  __asm__ volatile("mrs %0, fpcr\n\tmrs %1, fpsr" : "=r"(fpcr), "=r"(fpsr));
  f->fpcr = static_cast<uint32_t>(fpcr);
  f->fpsr = static_cast<uint32_t>(fpsr);
  f->err = 0;
  f->unused32 = 0;
  return f;
}

} // namespace copystack_rt

#endif
