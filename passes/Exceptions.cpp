//===- Exceptions.cpp - C++ exceptions on copyable stacks ---------------===//
#include "Exceptions.h"
#include "Names.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace copystack {

void prepareExceptions(Function &F) {
  SmallVector<LandingPadInst *, 4> Pads;
  SmallVector<ResumeInst *, 4> Resumes;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (auto *LP = dyn_cast<LandingPadInst>(&I))
        Pads.push_back(LP);
      else if (auto *R = dyn_cast<ResumeInst>(&I))
        Resumes.push_back(R);
    }
  if (Pads.empty())
    return;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  FunctionCallee Hook = M.getOrInsertFunction(
      names::LandingPad, FunctionType::get(Type::getVoidTy(C), false));
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *ExcSlot = EB.CreateAlloca(Ptr, nullptr, "eh.exception");
  AllocaInst *CfaSlot = EB.CreateAlloca(Ptr, nullptr, "eh.handler_cfa");
  // _Unwind_Exception: { u64 class, ptr cleanup, u64 private_1,
  // u64 private_2 }.
  constexpr uint64_t Private2 = 24;
  for (LandingPadInst *LP : Pads) {
    IRBuilder<> B(LP->getNextNode());
    B.CreateCall(Hook)->setDoesNotThrow();
    Value *Exc = B.CreateExtractValue(LP, 0);
    B.CreateStore(Exc, ExcSlot);
    B.CreateStore(B.CreateLoad(Ptr, B.CreateConstGEP1_64(B.getInt8Ty(), Exc,
                                                         Private2)),
                  CfaSlot);
  }
  FunctionCallee Resume = M.getOrInsertFunction(
      "_Unwind_Resume", FunctionType::get(Type::getVoidTy(C), {Ptr}, false));
  for (ResumeInst *R : Resumes) {
    IRBuilder<> B(R);
    Value *Exc = B.CreateExtractValue(R->getValue(), 0);
    Value *Same = B.CreateICmpEQ(Exc, B.CreateLoad(Ptr, ExcSlot));
    Value *Field = B.CreateConstGEP1_64(B.getInt8Ty(), Exc, Private2);
    Value *Saved = B.CreateLoad(Ptr, CfaSlot);
    B.CreateStore(B.CreateSelect(Same, Saved, B.CreateLoad(Ptr, Field)),
                  Field);
    CallInst *Call = B.CreateCall(Resume, {Exc});
    Call->setDoesNotReturn();
    B.CreateUnreachable();
    R->eraseFromParent();
  }
}

} // namespace copystack
