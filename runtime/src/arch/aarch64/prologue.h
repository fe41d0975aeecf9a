// prologue.h (AArch64): what a function stored before its own check, read
// from its instructions.
//
// The check runs after the frame is set up (docs/porting.md), so a frame
// bigger than the room left has its stack pointer below the task's stack
// when the check calls __morestack. That is harmless exactly when nothing
// the function ran before its check wrote below the stack: then the
// frame's part there was never written, and the growth reads it as zeros
// (frames.cc, place_block). Whether it holds is a fact of the machine code
// between the function's entry and its check, which is short (the
// frame's set-up, callee-saved stores, what LLVM scheduled ahead of the
// asm): scan_prologue decodes it and says, from the entry's stack pointer,
// the lowest byte stored and where the stack pointer is at the check. An
// instruction it does not model (a branch, a store through a register it
// does not follow, an atomic, ...) ends the scan unknown, and the caller
// keeps its conservative rule.
//
// Pure and host-independent, so that the units test it on any machine
// (test/unit/prologue_test.cc).
#ifndef COPYSTACK_ARCH_AARCH64_PROLOGUE_H
#define COPYSTACK_ARCH_AARCH64_PROLOGUE_H

#include <cstddef>
#include <cstdint>

namespace copystack_rt {
namespace a64 {

// The own check's instructions (passes/target/AArch64.cpp, ownCheck): the
// four before its `bl __morestack`.
constexpr size_t kCheckInsns = 4;

// Whether the kCheckInsns instructions at `insns` are the own check's
// (mrs x16, tpidr_el0; ldr x16, [x16, #8]; cmp sp, x16; b.hi over the bl
// and the udf).
bool is_own_check(const uint32_t *insns);

struct PrologueStores {
  bool known = false;    // every instruction decoded
  int64_t sp_at_end = 0; // sp after them, from the entry's sp
  bool stored = false;   // some instruction stored
  int64_t lowest = 0;    // the lowest byte stored, from the entry's sp
  size_t stopped_at = 0; // !known: the index of the instruction not modelled
  const char *why = nullptr; // !known: what it is
};

// Decodes the n instructions from a function's entry, the stack pointer at
// the entry standing for 0.
PrologueStores scan_prologue(const uint32_t *insns, size_t n);

} // namespace a64
} // namespace copystack_rt

#endif
