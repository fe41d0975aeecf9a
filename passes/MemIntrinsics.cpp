//===- MemIntrinsics.cpp - -O0 memory intrinsics as calls ---------------===//
#include "MemIntrinsics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace copystack {

// FastISel inlines constant sizes up to this.
static constexpr uint64_t kInlineBytes = 32;

static FunctionCallee libcMemset(Module &M) {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  Type *SizeTy = M.getDataLayout().getIntPtrType(C);
  return M.getOrInsertFunction(
      "memset",
      FunctionType::get(Ptr, {Ptr, Type::getInt32Ty(C), SizeTy}, false));
}

void zeroMemory(IRBuilder<> &B, Value *Dest, uint64_t Len, Align A) {
  Function &F = *B.GetInsertBlock()->getParent();
  if (F.hasOptNone() && Len > kInlineBytes) {
    Module &M = *F.getParent();
    B.CreateCall(libcMemset(M),
                 {Dest, B.getInt32(0),
                  ConstantInt::get(M.getDataLayout().getIntPtrType(
                                       M.getContext()),
                                   Len)});
    return;
  }
  B.CreateMemSet(Dest, B.getInt8(0), Len, A);
}

void memIntrinsicsToCalls(Function &F) {
  if (!F.hasOptNone())
    return;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  Type *SizeTy = M.getDataLayout().getIntPtrType(C);
  SmallVector<MemIntrinsic *, 8> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        auto *Len = dyn_cast<ConstantInt>(MI->getLength());
        if (!Len || Len->getZExtValue() > kInlineBytes)
          Work.push_back(MI);
      }
  for (MemIntrinsic *MI : Work) {
    IRBuilder<> B(MI);
    Value *Len = B.CreateZExtOrTrunc(MI->getLength(), SizeTy);
    if (auto *MS = dyn_cast<MemSetInst>(MI)) {
      B.CreateCall(libcMemset(M), {MS->getDest(),
                        B.CreateZExt(MS->getValue(), B.getInt32Ty()), Len});
    } else {
      auto *MT = cast<MemTransferInst>(MI);
      const char *Name = isa<MemMoveInst>(MT) ? "memmove" : "memcpy";
      FunctionCallee Fn = M.getOrInsertFunction(
          Name, FunctionType::get(Ptr, {Ptr, Ptr, SizeTy}, false));
      B.CreateCall(Fn, {MT->getDest(), MT->getSource(), Len});
    }
    MI->eraseFromParent();
  }
}

} // namespace copystack
