//===- AArch64.cpp - the pass's AArch64 machine code (experimental) ------===//
//
// The port in progress (docs/porting.md): what the pass emits for AArch64
// Linux, checked by the IR tests (test/lit/ir/aarch64_target.ll) through
// llc and by the e2e suite's aarch64 variants under qemu; the runtime's
// side is runtime/src/arch/aarch64/ (morestack.S, switch.S).
//
//===----------------------------------------------------------------------===//
#include "target/AArch64.h"
#include "Names.h"

#include "copystack/abi.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"

#include <algorithm>
#include <string>

using namespace llvm;

namespace copystack {

// The limit word: the second word of glibc's thread control block at
// TPIDR_EL0 ({dtv, private}), which glibc leaves unused on AArch64. Two
// instructions reach it into x16; x16 and x17 are the intra-procedure-call
// scratch registers, which linker veneers may clobber anyway.
static constexpr unsigned kLimitOffset = 8;

static std::string loadLimit() {
  return "mrs x16, tpidr_el0\n\tldr x16, [x16, #" +
         std::to_string(kLimitOffset) + "]\n\t";
}

// A call of a runtime entry through the GOT (never a lazily bound PLT
// entry: Attributes.h, bindEagerly).
static std::string callThroughGot(StringRef Sym) {
  return ("adrp x16, :got:" + Sym + "\n\tldr x16, [x16, :got_lo12:" + Sym +
          "]\n\tblr x16")
      .str();
}

static InlineAsm *asmOf(FunctionType *Ty, const std::string &Text,
                        StringRef Constraints) {
  return InlineAsm::get(Ty, Text, Constraints, /*hasSideEffects=*/true);
}

static FunctionType *voidFn(LLVMContext &C) {
  return FunctionType::get(Type::getVoidTy(C), false);
}

// After the frame: the call clobbers x30, so LLVM has saved it, and the
// whole frame with it, before the asm (shrink-wrapping cannot move the
// set-up past a use of the link register). The stack pointer compared is
// the frame's own; __morestack must not store below it (it may lie below
// the stack) and returns past the udf, whose immediate is the bytes of
// the function's arguments on the stack (0xffff: that many or more, the
// frame map says). The asm keeps every register but x16, x17, x30 and the
// flags: __morestack keeps the others, vector registers whole.
InlineAsm *AArch64Target::ownCheck(Function &F, uint64_t StackArgBytes) const {
  static_assert(COPYSTACK_OWN_CHECK == ~0ull, "the check's shape below");
  return asmOf(voidFn(F.getContext()),
               loadLimit() + "cmp sp, x16\n\tb.hi 1f\n\tbl " +
                   COPYSTACK_SYM_MORESTACK + "\n\tudf #" +
                   std::to_string(std::min<uint64_t>(StackArgBytes, 0xffff)) +
                   "\n1:",
               "~{x16},~{x17},~{lr},~{cc}");
}

// General registers for integers and pointers of up to 64 bits, vector
// registers for floating-point and vector values of up to 128 bits: what
// AAPCS64 passes in x0-x7 and v0-v7 (an i128 or an aggregate goes element
// by element, Attributes.cpp). 20 of each at most: with x16, x17 and x30
// clobbered, and x29 the frame pointer, 27 general registers remain.
const char *AArch64Target::checkCarries(Type *T) const {
  if (T->isPointerTy() || (T->isIntegerTy() && T->getIntegerBitWidth() <= 64))
    return "r";
  if (T->isHalfTy() || T->isBFloatTy() || T->isFloatTy() || T->isDoubleTy() ||
      T->isFP128Ty())
    return "w";
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    uint64_t Bits = VT->getPrimitiveSizeInBits().getFixedValue();
    if ((Bits == 64 || Bits == 128) &&
        (VT->getElementType()->isIntegerTy() ||
         VT->getElementType()->isFloatingPointTy()))
      return "w";
  }
  return nullptr;
}

// sp - ROOM >= limit, unsigned, as on x86-64 (LibcInPlace.cpp); the
// runtime's no-room entry keeps every register but x16, x17 and x30.
InlineAsm *AArch64Target::inPlaceRoomTest(LLVMContext &C) const {
  return asmOf(voidFn(C),
               loadLimit() + "sub x17, sp, #" +
                   std::to_string(COPYSTACK_IN_PLACE_ROOM) +
                   "\n\tcmp x17, x16\n\tb.hs ${0:l}\n\t" +
                   callThroughGot(names::NoRoom),
               "!i,~{x16},~{x17},~{lr},~{cc}");
}

// The preemption stub keeps the general registers but x16, x17 and x30, and
// the low halves of v8-v15 (AAPCS64); the function has no vector value
// (LoopPolls.cpp, hasVectorValues), and the other vector registers are
// declared clobbered. Clobbering x30 gives the leaf a frame record.
InlineAsm *AArch64Target::leafPoll(LLVMContext &C) const {
  static_assert(COPYSTACK_PREEMPT_LIMIT == ~1ull, "the poll's compare below");
  std::string Clobbers = "~{x16},~{x17},~{lr},~{cc},~{memory}";
  for (unsigned R = 0; R < 32; ++R)
    if (R < 8 || R >= 16)
      Clobbers += ",~{v" + std::to_string(R) + "}";
  return asmOf(voidFn(C),
               loadLimit() + "cmn x16, #2\n\tb.ne 1f\n\t" +
                   callThroughGot(names::Preempt) + "\n1:",
               Clobbers);
}

InlineAsm *AArch64Target::pollBranch(LLVMContext &C) const {
  static_assert(COPYSTACK_PREEMPT_LIMIT == ~1ull, "the poll's compare below");
  return asmOf(voidFn(C), loadLimit() + "cmn x16, #2\n\tb.eq ${0:l}",
               "!i,~{x16},~{cc}");
}

// No segment address space: the thread pointer plus the variable's
// initial-exec offset, read anew at each use (a side-effecting asm is not
// merged with another).
Value *AArch64Target::threadBlock(IRBuilder<> &B) const {
  LLVMContext &C = B.getContext();
  const std::string Sym = COPYSTACK_THREAD_SYMBOL;
  InlineAsm *IA = asmOf(FunctionType::get(Type::getInt64Ty(C), false),
                        "mrs $0, tpidr_el0\n\tadrp x17, :gottprel:" + Sym +
                            "\n\tldr x17, [x17, #:gottprel_lo12:" + Sym +
                            "]\n\tadd $0, $0, x17",
                        "=r,~{x17}");
  return B.CreateIntToPtr(B.CreateCall(IA, {}, "cs.thread.addr"),
                          PointerType::get(C, 0), "cs.thread");
}

} // namespace copystack
