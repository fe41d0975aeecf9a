//===- AArch64.h - the pass's AArch64 machine code (experimental) --------===//
#ifndef COPYSTACK_PASSES_TARGET_AARCH64_H
#define COPYSTACK_PASSES_TARGET_AARCH64_H

#include "target/Target.h"

#include "copystack/abi.h"

namespace copystack {

/// AArch64 Linux, the port in progress (docs/porting.md): the limit word
/// at TPIDR_EL0 + 8 (the private word of glibc's thread control block,
/// which glibc does not use there), the runtime's thread state in
/// initial-exec TLS. LLVM 19 has neither a split-stack prologue nor a
/// named stack probe for AArch64: the own check is the only one, and it
/// runs after the frame is set up (its call clobbers x30, so LLVM saves
/// the link register, and with it sets up the whole frame, before it).
class AArch64Target final : public Target {
public:
  llvm::InlineAsm *ownCheck(llvm::Function &F,
                            uint64_t StackArgBytes) const override;
  llvm::InlineAsm *inPlaceRoomTest(llvm::LLVMContext &C) const override;
  llvm::InlineAsm *leafPoll(llvm::LLVMContext &C) const override;
  llvm::InlineAsm *pollBranch(llvm::LLVMContext &C) const override;
  llvm::Value *threadBlock(llvm::IRBuilder<> &B) const override;
  llvm::StringRef foreignCallSymbol() const override {
    return COPYSTACK_SYM_FOREIGN_CALL_X18;
  }
  bool hasLlvmSplitStack() const override { return false; }
  bool probesLargeFrames() const override { return false; }
  const char *checkCarries(llvm::Type *T) const override;
  unsigned checkCarriesAtMost() const override { return 20; }
  uint64_t futexSyscall() const override { return 98; } // asm-generic
};

} // namespace copystack

#endif
