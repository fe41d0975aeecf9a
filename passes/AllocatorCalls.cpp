//===- AllocatorCalls.cpp - malloc and free in place when it is safe -----===//
#include "AllocatorCalls.h"
#include "Names.h"

#include "copystack/abi.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace copystack {

namespace {

// glibc's allocator entry points, by name and C signature.
bool isLibcAllocator(const Function &G) {
  LLVMContext &C = G.getContext();
  Type *Ptr = PointerType::get(C, 0), *I64 = Type::getInt64Ty(C);
  Type *Void = Type::getVoidTy(C);
  FunctionType *FT = G.getFunctionType();
  StringRef N = G.getName();
  if (N == "malloc")
    return FT == FunctionType::get(Ptr, {I64}, false);
  if (N == "free")
    return FT == FunctionType::get(Void, {Ptr}, false);
  if (N == "calloc")
    return FT == FunctionType::get(Ptr, {I64, I64}, false);
  if (N == "realloc")
    return FT == FunctionType::get(Ptr, {Ptr, I64}, false);
  return false;
}

} // namespace

unsigned callAllocatorInPlace(Function &F, const Policy &P) {
  SmallVector<CallInst *, 8> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (auto *G = dyn_cast<Function>(CI->getCalledOperand()))
          if (G->isDeclaration() && isLibcAllocator(*G) &&
              CI->getFunctionType() == G->getFunctionType() &&
              !CI->isMustTailCall() && !CI->hasOperandBundles() &&
              P.classify(*CI) == CallKind::Dispatch)
            Work.push_back(CI);
  if (Work.empty())
    return 0;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  auto *Flag = cast<GlobalVariable>(
      M.getOrInsertGlobal(COPYSTACK_ALLOC_IN_PLACE_SYMBOL, I32));
  // The room above the stack limit, %rsp - %fs:limit: huge off task stacks
  // (the limit is 0 there). Read where the call is, every time.
  InlineAsm *Room = InlineAsm::get(
      FunctionType::get(I64, false),
      "movq %rsp, $0\n\tsubq %fs:" + std::to_string(COPYSTACK_TCB_LIMIT) +
          ", $0",
      "=r", /*hasSideEffects=*/true);
  for (CallInst *CI : Work) {
    IRBuilder<> B(CI);
    B.SetCurrentDebugLocation(CI->getDebugLoc());
    Value *On = B.CreateICmpNE(B.CreateLoad(I32, Flag, "alloc.in.place"),
                               B.getInt32(0));
    Value *Fits = B.CreateICmpSGE(B.CreateCall(Room, {}, "stack.room"),
                                  B.getInt64(COPYSTACK_ALLOC_ROOM));
    Instruction *ThenT, *ElseT;
    SplitBlockAndInsertIfThenElse(B.CreateAnd(On, Fits), CI->getIterator(),
                                  &ThenT, &ElseT,
                                  MDBuilder(C).createLikelyBranchWeights());
    auto *InPlace = cast<CallInst>(CI->clone());
    InPlace->insertBefore(ThenT);
    InPlace->setMetadata(names::InPlaceCallMD, MDNode::get(C, {}));
    BasicBlock *Tail = CI->getParent();
    CI->moveBefore(ElseT);
    if (!CI->getType()->isVoidTy()) {
      PHINode *Phi = PHINode::Create(CI->getType(), 2, "", Tail->begin());
      CI->replaceAllUsesWith(Phi);
      Phi->addIncoming(InPlace, ThenT->getParent());
      Phi->addIncoming(CI, ElseT->getParent());
    }
  }
  return Work.size();
}

} // namespace copystack
