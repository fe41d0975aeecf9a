//===- X86_64.h - the pass's x86-64 machine code -------------------------===//
#ifndef COPYSTACK_PASSES_TARGET_X86_64_H
#define COPYSTACK_PASSES_TARGET_X86_64_H

#include "target/Target.h"

#include "copystack/abi.h"

namespace copystack {

/// x86-64 Linux: the limit word at %fs:0x70 (glibc's split-stack slot of
/// the thread control block), the runtime's thread state in initial-exec
/// TLS reached through %fs.
class X86_64Target final : public Target {
public:
  llvm::InlineAsm *ownCheck(llvm::Function &F,
                            uint64_t StackArgBytes) const override;
  llvm::InlineAsm *inPlaceRoomTest(llvm::LLVMContext &C) const override;
  llvm::InlineAsm *leafPoll(llvm::LLVMContext &C) const override;
  llvm::InlineAsm *pollBranch(llvm::LLVMContext &C) const override;
  llvm::Value *threadBlock(llvm::IRBuilder<> &B) const override;
  llvm::StringRef foreignCallSymbol() const override {
    return COPYSTACK_SYM_FOREIGN_CALL;
  }
  bool hasLlvmSplitStack() const override { return true; }
  bool probesLargeFrames() const override { return true; }
  uint64_t futexSyscall() const override { return 202; }
};

} // namespace copystack

#endif
