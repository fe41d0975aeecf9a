//===- SafepointSpills.cpp - pointer values live across safepoints -------===//
#include "SafepointSpills.h"
#include "TypeLayout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace copystack {

namespace {

// Frame addresses the backend recomputes from %rbp after the stack moved:
// allocas and constant offsets from them (at -O0 too: FastISel materializes
// them at each use). Not byval arguments: at -O0 FastISel computes their
// address once at entry, and RegAllocFast spills it across calls.
bool isFrameAddress(const Value *V, const DataLayout &DL) {
  APInt Off(DL.getIndexTypeSizeInBits(V->getType()), 0);
  const Value *Base = V->stripAndAccumulateConstantOffsets(
      DL, Off, /*AllowNonInbounds=*/true);
  if (auto *AI = dyn_cast<AllocaInst>(Base))
    return AI->isStaticAlloca();
  return false;
}

bool neverPointsIntoStack(const Value *V) {
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(V, Objects, nullptr, /*MaxLookup=*/8);
  for (const Value *O : Objects) {
    if (isa<GlobalValue>(O) || isa<ConstantPointerNull>(O) ||
        isa<UndefValue>(O) || isa<ConstantExpr>(O))
      continue;
    if (isNoAliasCall(O))
      continue;
    if (auto *LI = dyn_cast<LoadInst>(O))
      if (LI->getMetadata(names::NoAliasResultMD))
        continue;
    if (auto *I = dyn_cast<Instruction>(O))
      if (I->getMetadata(names::PinnedMD))
        continue;
    return false;
  }
  return !Objects.empty();
}

bool needsSlot(const Value *V, const DataLayout &DL) {
  Type *T = V->getType();
  if (T->isTokenTy() || T->isVoidTy() || T->isLabelTy() ||
      T->isMetadataTy())
    return false;
  if (containsStackPointer(T)) {
    if (isStackPointerType(T) &&
        (isFrameAddress(V, DL) || neverPointsIntoStack(V)))
      return false;
    return true;
  }
  return mayCarryPointerBits(V);
}

class Spiller {
public:
  Spiller(Function &F, const Policy &P, SpillStats &Stats)
      : F(F), DL(F.getParent()->getDataLayout()), P(P), Stats(Stats),
        DT(F) {}

  bool run() {
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (P.isSafepoint(*CB)) {
            Safepoints.insert(CB);
            BlocksWithSafepoint.insert(&BB);
          }
    if (Safepoints.empty())
      return false;
    bool Changed = demoteUnwindPhis();

    SmallVector<Value *, 32> Candidates;
    for (Argument &A : F.args())
      if (needsSlot(&A, DL))
        Candidates.push_back(&A);
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (!I.use_empty() && needsSlot(&I, DL))
          Candidates.push_back(&I);

    for (Value *V : Candidates)
      Changed |= handle(V);
    return Changed;
  }

private:
  Function &F;
  const DataLayout &DL;
  const Policy &P;
  SpillStats &Stats;
  DominatorTree DT;
  DenseSet<const Instruction *> Safepoints;
  DenseSet<const BasicBlock *> BlocksWithSafepoint;

  // A phi in a landing pad that takes a value across an invoke's unwind
  // edge cannot get its reload on that edge: an EH edge cannot be split
  // (LLVM would insert funclet pads, invalid with Itanium landing pads).
  // Such phis go through a stack slot instead: each predecessor stores its
  // incoming value before its terminator, the pad loads it. The slot is a
  // stack object holding pointers, which the frame map describes, so the
  // value is relocated if the invoke moved the stack.
  bool demoteUnwindPhis() {
    SmallVector<PHINode *, 8> Phis;
    for (BasicBlock &BB : F) {
      if (!BB.isLandingPad())
        continue;
      for (PHINode &Phi : BB.phis()) {
        for (unsigned I = 0, E = Phi.getNumIncomingValues(); I != E; ++I) {
          Instruction *T = Phi.getIncomingBlock(I)->getTerminator();
          if (Safepoints.count(T) && needsSlot(Phi.getIncomingValue(I), DL)) {
            Phis.push_back(&Phi);
            break;
          }
        }
      }
    }
    BasicBlock &Entry = F.getEntryBlock();
    for (PHINode *Phi : Phis) {
      IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
      AllocaInst *Slot = EB.CreateAlloca(Phi->getType(), nullptr,
                                         Phi->getName() + ".cs.phislot");
      for (unsigned I = 0, E = Phi->getNumIncomingValues(); I != E; ++I)
        new StoreInst(Phi->getIncomingValue(I), Slot,
                      Phi->getIncomingBlock(I)->getTerminator());
      IRBuilder<> B(Phi->getParent(), Phi->getParent()->getFirstInsertionPt());
      LoadInst *L = B.CreateLoad(Phi->getType(), Slot);
      L->takeName(Phi);
      Phi->replaceAllUsesWith(L);
      Phi->eraseFromParent();
      ++Stats.Values;
    }
    return !Phis.empty();
  }

  BasicBlock *defBlock(Value *V) {
    if (auto *I = dyn_cast<Instruction>(V))
      return I->getParent();
    return &F.getEntryBlock();
  }

  // Is there a safepoint in BB strictly between From (exclusive; null: the
  // block's start) and To (exclusive; null: the block's end)?
  bool safepointBetween(BasicBlock *BB, const Instruction *From,
                        const Instruction *To) {
    if (!BlocksWithSafepoint.count(BB))
      return false;
    auto It = From ? std::next(From->getIterator()) : BB->begin();
    for (; It != BB->end() && &*It != To; ++It)
      if (Safepoints.count(&*It))
        return true;
    return false;
  }

  // The uses of V that a safepoint may separate from V's definition.
  struct Crossing {
    SmallVector<Instruction *, 4> Users;               // non-phi users
    SmallVector<std::pair<PHINode *, unsigned>, 4> PhiIncomings;
  };

  Crossing crossedUses(Value *V) {
    Crossing C;
    BasicBlock *Def = defBlock(V);
    auto *DefI = dyn_cast<Instruction>(V);
    // For an argument the definition point is the entry block's start.
    const Instruction *DefPoint = DefI;
    if (auto *II = dyn_cast_or_null<InvokeInst>(DefI)) {
      // An invoke's value exists on its normal edge only (handle() made
      // that edge the normal destination's only way in).
      Def = II->getNormalDest();
      DefPoint = nullptr;
    }

    // Forward "a safepoint was crossed" over the region V dominates.
    DenseMap<BasicBlock *, bool> In, Out;
    SmallVector<BasicBlock *, 16> Work;
    auto outOf = [&](BasicBlock *BB) {
      if (BB == Def)
        return safepointBetween(BB, DefPoint, nullptr);
      return In.lookup(BB) || BlocksWithSafepoint.count(BB) > 0;
    };
    auto reach = [&](BasicBlock *S, bool Crossed) {
      auto [InIt, New] = In.try_emplace(S, Crossed);
      if (!New) {
        if (InIt->second || !Crossed)
          return;
        InIt->second = true;
      }
      bool O = outOf(S);
      auto [OutIt, NewOut] = Out.try_emplace(S, O);
      if (NewOut || OutIt->second != O) {
        OutIt->second = O;
        Work.push_back(S);
      }
    };
    Out[Def] = outOf(Def);
    Work.push_back(Def);
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      bool O = Out[BB];
      for (BasicBlock *S : successors(BB))
        if (S != Def && DT.dominates(Def, S))
          reach(S, O);
    }

    for (Use &U : V->uses()) {
      auto *User = cast<Instruction>(U.getUser());
      if (auto *Phi = dyn_cast<PHINode>(User)) {
        BasicBlock *From = Phi->getIncomingBlock(U);
        auto It = Out.find(From);
        if (It != Out.end() && It->second)
          C.PhiIncomings.push_back({Phi, U.getOperandNo()});
        continue;
      }
      BasicBlock *BB = User->getParent();
      bool Crossed;
      if (BB == Def)
        Crossed = safepointBetween(BB, DefPoint, User);
      else
        Crossed = In.lookup(BB) || safepointBetween(BB, nullptr, User);
      if (Crossed)
        C.Users.push_back(User);
    }
    return C;
  }

  BasicBlock::iterator storePoint(Value *V) {
    if (auto *II = dyn_cast<InvokeInst>(V))
      return II->getNormalDest()->getFirstInsertionPt();
    if (auto *I = dyn_cast<Instruction>(V)) {
      if (isa<PHINode>(I) || I->isEHPad())
        return I->getParent()->getFirstInsertionPt();
      return std::next(I->getIterator());
    }
    BasicBlock &Entry = F.getEntryBlock();
    return Entry.getFirstNonPHIOrDbgOrAlloca();
  }

  bool handle(Value *V) {
    if (auto *II = dyn_cast<InvokeInst>(V))
      if (!II->getNormalDest()->getSinglePredecessor())
        SplitEdge(II->getParent(), II->getNormalDest(), &DT);
    Crossing C = crossedUses(V);
    if (C.Users.empty() && C.PhiIncomings.empty())
      return false;
    ++Stats.Values;

    BasicBlock &Entry = F.getEntryBlock();
    IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
    AllocaInst *Slot = EB.CreateAlloca(V->getType(), nullptr,
                                       V->getName() + ".cs.slot");
    BasicBlock::iterator At = storePoint(V);
    IRBuilder<> SB(At->getParent(), At);
    SB.CreateStore(V, Slot);

    DenseMap<Instruction *, Value *> ReloadAt;
    for (Instruction *User : C.Users) {
      Value *&R = ReloadAt[User];
      if (!R) {
        IRBuilder<> B(User);
        R = B.CreateLoad(V->getType(), Slot, V->getName() + ".cs.reload");
        ++Stats.Reloads;
      }
      User->replaceUsesOfWith(V, R);
    }
    DenseMap<BasicBlock *, Value *> ReloadOnEdge;
    for (auto [Phi, OpNo] : C.PhiIncomings) {
      BasicBlock *From = Phi->getIncomingBlock(OpNo);
      BasicBlock *Edge = From;
      // When the safepoint is the edge itself (an invoke), reload after it.
      if (Safepoints.count(From->getTerminator()))
        Edge = SplitEdge(From, Phi->getParent(), &DT);
      Value *&R = ReloadOnEdge[Edge];
      if (!R) {
        IRBuilder<> B(Edge->getTerminator());
        R = B.CreateLoad(V->getType(), Slot, V->getName() + ".cs.reload");
        ++Stats.Reloads;
      }
      // SplitEdge retargeted the incoming block, keeping the operand number.
      Phi->setOperand(OpNo, R);
    }
    return true;
  }
};

// A copy of frame address V (an alloca, or casts and constant offsets from
// one) computed right before InsertBefore.
Value *materializeFrameAddress(Value *V, Instruction *InsertBefore) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || isa<AllocaInst>(I))
    return V;
  Instruction *Copy = I->clone();
  for (Use &Op : Copy->operands())
    if (Op->getType()->isPointerTy())
      Op.set(materializeFrameAddress(Op.get(), InsertBefore));
  Copy->insertBefore(InsertBefore);
  Copy->setName(I->getName());
  return Copy;
}

// At -O0, FastISel computes an address instruction (a GEP of a local) once,
// into a virtual register, and RegAllocFast spills every virtual register
// live across a call or out of a block to a slot no map describes. Each use
// gets its own copy, computed right before it, so that none lives across
// anything. (Allocas themselves are rematerialized at each use by FastISel.)
void rematerializeFrameAddresses(Function &F, const DataLayout &DL) {
  SmallVector<Instruction *, 32> Addresses;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (!isa<AllocaInst>(I) && !I.use_empty() &&
          I.getType()->isPointerTy() &&
          (isa<GetElementPtrInst>(I) || isa<CastInst>(I)) &&
          isFrameAddress(&I, DL))
        Addresses.push_back(&I);
  for (Instruction *I : Addresses) {
    SmallVector<Use *, 4> Uses;
    for (Use &U : I->uses())
      Uses.push_back(&U);
    for (Use *U : Uses) {
      auto *User = cast<Instruction>(U->getUser());
      Instruction *At = User;
      if (auto *Phi = dyn_cast<PHINode>(User))
        At = Phi->getIncomingBlock(*U)->getTerminator();
      else if (User->getParent() == I->getParent() &&
               User->getPrevNode() == I)
        continue; // used right where it is computed
      U->set(materializeFrameAddress(I, At));
    }
  }
  for (Instruction *I : llvm::reverse(Addresses))
    if (I->use_empty())
      I->eraseFromParent();
}

// At -O0, when FastISel cannot select an instruction that is not a call (an
// invoke, a uitofp to double, ...), it hands everything before it in the
// block to SelectionDAG as one DAG, with one FrameIndex node per local: a
// local's address used by a call and again after it is then one lea, whose
// register the fast register allocator spills across the call to a slot
// nothing describes (pugixml's test suite, debug build). So every safepoint
// ends its block: a DAG then never spans a call, and FastISel computes a
// local's address afresh at each use as before.
void endBlocksAtSafepoints(Function &F, const Policy &P) {
  SmallVector<Instruction *, 32> Next;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || CB->isTerminator() || CB->isMustTailCall() ||
          !P.isSafepoint(*CB))
        continue;
      // Unless only a branch or a return follows (an invoke does count).
      Instruction *After = CB->getNextNode();
      if (After && (!After->isTerminator() || isa<CallBase>(After)))
        Next.push_back(After);
    }
  for (Instruction *I : Next)
    SplitBlock(I->getParent(), I);
}

} // namespace

bool spillAcrossSafepoints(Function &F, const Policy &P, SpillStats &Stats) {
  if (F.hasOptNone()) {
    endBlocksAtSafepoints(F, P);
    rematerializeFrameAddresses(F, F.getParent()->getDataLayout());
  }
  return Spiller(F, P, Stats).run();
}

} // namespace copystack
