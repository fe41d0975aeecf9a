//===- StackDepthChecks.cpp - warn about stack addresses kept as integers -===//
#include "StackDepthChecks.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace copystack {

namespace {

bool isFrameAddressIntrinsic(const Value *V) {
  auto *II = dyn_cast<IntrinsicInst>(V);
  if (!II)
    return false;
  switch (II->getIntrinsicID()) {
  case Intrinsic::frameaddress:
  case Intrinsic::stacksave:
  case Intrinsic::addressofreturnaddress:
  case Intrinsic::sponentry:
    return true;
  default:
    return false;
  }
}

bool isFrameLocal(const Value *O) {
  if (auto *AI = dyn_cast<AllocaInst>(O))
    return AI->isStaticAlloca();
  if (auto *A = dyn_cast<Argument>(O))
    return A->hasByValAttr();
  return false;
}

// Is memory at P outside the frame (not one of the function's own locals)?
bool outsideFrame(const Value *P) { return !isFrameLocal(getUnderlyingObject(P)); }

// A pointer that is a stack address: a frame-address intrinsic or a
// local's address, through GEPs and casts.
bool isStackPointer(const Value *P) {
  const Value *O = getUnderlyingObject(P);
  return isFrameAddressIntrinsic(O) || isFrameLocal(O);
}

class Checker {
public:
  Checker(const SmallPtrSetImpl<const Function *> &Returning)
      : Returning(Returning) {}

  // The integers (and frame-address pointers) of F that hold stack
  // addresses.
  void collect(Function &F) {
    SmallVector<const Value *, 16> Work;
    auto add = [&](const Value *V, bool FromFrame) {
      if (Tainted.insert(V).second) {
        Work.push_back(V);
        if (FromFrame)
          FrameDerived.insert(V);
      }
    };
    for (Instruction &I : instructions(F)) {
      if (auto *PI = dyn_cast<PtrToIntInst>(&I)) {
        if (isStackPointer(PI->getPointerOperand()))
          add(PI, isFrameAddressIntrinsic(
                      getUnderlyingObject(PI->getPointerOperand())));
      } else if (isFrameAddressIntrinsic(&I)) {
        add(&I, true);
      } else if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (const Function *G = CB->getCalledFunction())
          if (Returning.count(G))
            add(CB, true);
      }
    }
    while (!Work.empty()) {
      const Value *V = Work.pop_back_val();
      for (const User *U : V->users()) {
        if (isa<BinaryOperator>(U) || isa<CastInst>(U) || isa<PHINode>(U) ||
            isa<SelectInst>(U) || isa<FreezeInst>(U) ||
            isa<GetElementPtrInst>(U)) {
          add(U, FrameDerived.count(V));
          continue;
        }
        // Through the function's own locals (-O0 keeps everything there).
        if (auto *SI = dyn_cast<StoreInst>(U))
          if (SI->getValueOperand() == V &&
              !outsideFrame(SI->getPointerOperand()))
            for (const User *LU :
                 getUnderlyingObject(SI->getPointerOperand())->users())
              if (auto *LI = dyn_cast<LoadInst>(LU))
                add(LI, FrameDerived.count(V));
      }
    }
  }

  bool returnsStackAddress(Function &F) {
    for (Instruction &I : instructions(F))
      if (auto *R = dyn_cast<ReturnInst>(&I))
        if (R->getReturnValue() && FrameDerived.count(R->getReturnValue()))
          return true;
    return false;
  }

  // What to warn about: stores outside the frame, ordered comparisons with
  // values loaded from outside it.
  void findUses(Function &F,
                SmallVectorImpl<std::pair<Instruction *, bool>> &Out) {
    for (const Value *V : Tainted) {
      for (const User *U : V->users()) {
        auto *I = const_cast<Instruction *>(dyn_cast<Instruction>(U));
        if (!I || I->getFunction() != &F)
          continue;
        // Stores only of frame addresses: at -O1 and above the optimizer
        // itself copies pointers to locals as integers.
        if (auto *SI = dyn_cast<StoreInst>(I)) {
          if (SI->getValueOperand() == V && FrameDerived.count(V) &&
              outsideFrame(SI->getPointerOperand()))
            Out.push_back({I, /*Store=*/true});
          continue;
        }
        auto *Cmp = dyn_cast<ICmpInst>(I);
        if (!Cmp || Cmp->isEquality())
          continue;
        const Value *Other =
            Cmp->getOperand(0) == V ? Cmp->getOperand(1) : Cmp->getOperand(0);
        if (loadedFromOutside(Other))
          Out.push_back({I, /*Store=*/false});
      }
    }
  }

private:
  const SmallPtrSetImpl<const Function *> &Returning;
  SmallPtrSet<const Value *, 16> Tainted;
  // The part of Tainted that comes from frame-address intrinsics (not only
  // from locals' addresses).
  SmallPtrSet<const Value *, 16> FrameDerived;

  // A value loaded from memory outside the frame, possibly adjusted by
  // arithmetic (a limit minus a margin).
  bool loadedFromOutside(const Value *V) {
    for (int Depth = 0; Depth < 8; ++Depth) {
      if (auto *LI = dyn_cast<LoadInst>(V))
        return outsideFrame(LI->getPointerOperand());
      if (auto *BO = dyn_cast<BinaryOperator>(V)) {
        V = BO->getOperand(0);
        continue;
      }
      if (auto *CI = dyn_cast<CastInst>(V)) {
        V = CI->getOperand(0);
        continue;
      }
      return false;
    }
    return false;
  }
};

} // namespace

void warnStackDepthChecks(Module &M, ArrayRef<Function *> Fns) {
  // Functions returning a stack address as an integer, to a fixed point
  // (a helper that returns the frame address, one that returns its result).
  SmallPtrSet<const Function *, 8> Returning;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function &F : M) {
      if (F.isDeclaration() || Returning.count(&F))
        continue;
      Checker C(Returning);
      C.collect(F);
      if (C.returnsStackAddress(F)) {
        Returning.insert(&F);
        Changed = true;
      }
    }
  }

  StringSet<> Reported;
  for (Function *F : Fns) {
    Checker C(Returning);
    C.collect(*F);
    SmallVector<std::pair<Instruction *, bool>, 4> Uses;
    C.findUses(*F, Uses);
    for (auto [I, Store] : Uses) {
      std::string Key;
      if (const DebugLoc &DL = I->getDebugLoc())
        Key = DL->getFilename().str() + ":" + std::to_string(DL.getLine()) +
              ":" + std::to_string(DL.getCol());
      else
        Key = F->getName().str() + (Store ? ":store" : ":compare");
      if (!Reported.insert(Key).second)
        continue;
      StringRef What = Store ? "stores a stack address as an integer in memory "
                           "outside its frame"
                         : "compares a stack address with a value loaded "
                           "from memory";
      M.getContext().diagnose(DiagnosticInfoUnsupported(
          *F,
          "copystack: '" + F->getName() + "' " + What +
              " (a stack-depth check?): a task's stack moves when it "
              "grows, so stack addresses taken at different times cannot "
              "be compared; use copystack_stack_pointer() from "
              "copystack.h",
          DiagnosticLocation(I->getDebugLoc()), DS_Warning));
    }
  }
}

} // namespace copystack
