//===- LibcInPlace.cpp - libc calls in place when there is room ----------===//
#include "LibcInPlace.h"
#include "Names.h"

#include "copystack/abi.h"

#include "llvm/IR/IRBuilder.h"
#include "X86Asm.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <cerrno>

using namespace llvm;

namespace copystack {

namespace {

enum class Sig { PtrI64, VoidPtr, PtrI64I64, PtrPtrI64, I32Ptr, I64PtrPtr,
                 PtrPtrPtr };

struct InPlaceFn {
  const char *Name;
  Sig Signature;
  int Group;
};

// The functions, by name and C signature (copystack/abi.h has the groups).
constexpr InPlaceFn Functions[] = {
    {"malloc", Sig::PtrI64, COPYSTACK_IN_PLACE_ALLOC},
    {"free", Sig::VoidPtr, COPYSTACK_IN_PLACE_ALLOC},
    {"calloc", Sig::PtrI64I64, COPYSTACK_IN_PLACE_ALLOC},
    {"realloc", Sig::PtrPtrI64, COPYSTACK_IN_PLACE_ALLOC},
    {"pthread_mutex_lock", Sig::I32Ptr, COPYSTACK_IN_PLACE_MUTEX},
    {"pthread_mutex_unlock", Sig::I32Ptr, COPYSTACK_IN_PLACE_MUTEX},
    {"strcspn", Sig::I64PtrPtr, COPYSTACK_IN_PLACE_SCAN},
    {"strspn", Sig::I64PtrPtr, COPYSTACK_IN_PLACE_SCAN},
    {"strpbrk", Sig::PtrPtrPtr, COPYSTACK_IN_PLACE_SCAN},
};

FunctionType *typeOf(Sig S, LLVMContext &C) {
  Type *Ptr = PointerType::get(C, 0), *I64 = Type::getInt64Ty(C);
  Type *I32 = Type::getInt32Ty(C), *Void = Type::getVoidTy(C);
  switch (S) {
  case Sig::PtrI64:
    return FunctionType::get(Ptr, {I64}, false);
  case Sig::VoidPtr:
    return FunctionType::get(Void, {Ptr}, false);
  case Sig::PtrI64I64:
    return FunctionType::get(Ptr, {I64, I64}, false);
  case Sig::PtrPtrI64:
    return FunctionType::get(Ptr, {Ptr, I64}, false);
  case Sig::I32Ptr:
    return FunctionType::get(I32, {Ptr}, false);
  case Sig::I64PtrPtr:
    return FunctionType::get(I64, {Ptr, Ptr}, false);
  case Sig::PtrPtrPtr:
    return FunctionType::get(Ptr, {Ptr, Ptr}, false);
  }
  return nullptr;
}

const InPlaceFn *lookup(const Function &G) {
  for (const InPlaceFn &E : Functions)
    if (G.getName() == E.Name &&
        G.getFunctionType() == typeOf(E.Signature, G.getContext()))
      return &E;
  return nullptr;
}

} // namespace

unsigned callLibcInPlace(Function &F, const Policy &P) {
  SmallVector<std::pair<CallInst *, const InPlaceFn *>, 8> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (auto *G = dyn_cast<Function>(CI->getCalledOperand()))
          if (G->isDeclaration() &&
              CI->getFunctionType() == G->getFunctionType() &&
              !CI->isMustTailCall() && !CI->hasOperandBundles() &&
              P.classify(*CI) == CallKind::Dispatch)
            if (const InPlaceFn *E = lookup(*G))
              Work.push_back({CI, E});
  if (Work.empty())
    return 0;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  auto *Flags = cast<GlobalVariable>(
      M.getOrInsertGlobal(COPYSTACK_LIBC_IN_PLACE_SYMBOL, I32));
  // The room above the stack limit, %rsp - %fs:limit: huge off task stacks
  // (the limit is 0 there). Read where the call is, every time.
  InlineAsm *Room = x86Asm(FunctionType::get(I64, false),
                           "movq %rsp, $0\n\tsubq %fs:" +
                               Twine(COPYSTACK_TCB_LIMIT) + ", $0",
                           "=r");
  for (auto [CI, E] : Work) {
    IRBuilder<> B(CI);
    B.SetCurrentDebugLocation(CI->getDebugLoc());
    Value *Bits = B.CreateLoad(I32, Flags, "libc.in.place");
    Value *On = B.CreateICmpNE(B.CreateAnd(Bits, B.getInt32(E->Group)),
                               B.getInt32(0));
    Value *Fits = B.CreateICmpSGE(B.CreateCall(Room, {}, "stack.room"),
                                  B.getInt64(COPYSTACK_IN_PLACE_ROOM));
    Instruction *ThenT, *ElseT;
    SplitBlockAndInsertIfThenElse(B.CreateAnd(On, Fits), CI->getIterator(),
                                  &ThenT, &ElseT,
                                  MDBuilder(C).createLikelyBranchWeights());
    BasicBlock *Tail = CI->getParent();
    CallInst *InPlace;
    if (StringRef(E->Name) == "pthread_mutex_lock") {
      FunctionCallee Try = M.getOrInsertFunction(
          "pthread_mutex_trylock", CI->getFunctionType());
      InPlace = CallInst::Create(Try, {CI->getArgOperand(0)}, "trylock",
                                 ThenT->getIterator());
      InPlace->setDebugLoc(CI->getDebugLoc());
      InPlace->setDoesNotThrow();
      // Held: the blocking lock, as a foreign call the monitor sees.
      IRBuilder<> TB(ThenT);
      Value *Held = TB.CreateICmpEQ(InPlace, TB.getInt32(EBUSY));
      BranchInst::Create(ElseT->getParent(), Tail, Held, ThenT->getIterator());
      ThenT->eraseFromParent();
    } else {
      InPlace = cast<CallInst>(CI->clone());
      InPlace->insertBefore(ThenT);
    }
    InPlace->setMetadata(names::InPlaceCallMD, MDNode::get(C, {}));
    CI->moveBefore(ElseT);
    if (!CI->getType()->isVoidTy()) {
      PHINode *Phi = PHINode::Create(CI->getType(), 2, "", Tail->begin());
      CI->replaceAllUsesWith(Phi);
      Phi->addIncoming(InPlace, InPlace->getParent());
      Phi->addIncoming(CI, ElseT->getParent());
    }
  }
  return Work.size();
}

} // namespace copystack
