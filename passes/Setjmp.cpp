//===- Setjmp.cpp - setjmp on copyable stacks ---------------------------===//
#include "Setjmp.h"
#include "Names.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace copystack {

void prepareSetjmp(Function &F) {
  SmallVector<CallBase *, 2> Calls;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB->hasFnAttr(Attribute::ReturnsTwice))
          Calls.push_back(CB);
  if (Calls.empty())
    return;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *Slot = EB.CreateAlloca(Ptr, nullptr, "cs.jmpbuf");
  Slot->setMetadata(names::JmpBufMD, MDNode::get(C, {}));
  EB.SetInsertPoint(&Entry, Entry.getFirstNonPHIOrDbgOrAlloca());
  EB.CreateStore(ConstantPointerNull::get(PointerType::get(C, 0)), Slot);
  FunctionCallee Hook = M.getOrInsertFunction(
      names::LandingPad, FunctionType::get(Type::getVoidTy(C), false));
  for (CallBase *CB : Calls) {
    IRBuilder<> B(CB);
    B.CreateStore(CB->getArgOperand(0), Slot);
    Instruction *After = CB->getNextNode();
    if (auto *II = dyn_cast<InvokeInst>(CB)) {
      BasicBlock *Normal = II->getNormalDest();
      if (!Normal->getSinglePredecessor())
        Normal = SplitEdge(II->getParent(), Normal);
      After = &*Normal->getFirstInsertionPt();
    }
    IRBuilder<>(After).CreateCall(Hook)->setDoesNotThrow();
  }
}

} // namespace copystack
