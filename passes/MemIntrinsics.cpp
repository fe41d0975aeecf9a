//===- MemIntrinsics.cpp - -O0 memory intrinsics as calls ---------------===//
#include "MemIntrinsics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace copystack {

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
        if (!Len || Len->getZExtValue() > 32)
          Work.push_back(MI);
      }
  for (MemIntrinsic *MI : Work) {
    IRBuilder<> B(MI);
    Value *Len = B.CreateZExtOrTrunc(MI->getLength(), SizeTy);
    if (auto *MS = dyn_cast<MemSetInst>(MI)) {
      FunctionCallee Fn = M.getOrInsertFunction(
          "memset", FunctionType::get(Ptr, {Ptr, B.getInt32Ty(), SizeTy},
                                      false));
      B.CreateCall(Fn, {MS->getDest(),
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
