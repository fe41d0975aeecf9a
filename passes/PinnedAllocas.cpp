//===- PinnedAllocas.cpp - locals that live off the copyable stack -------===//
#include "PinnedAllocas.h"
#include "Names.h"
#include "VaListSlots.h"

#include "copystack/abi.h"

#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/IRBuilder.h"
#include "target/Target.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"

using namespace llvm;

namespace copystack {

static cl::opt<bool> SinkPinsOpt(
    "copystack-sink-pins", cl::Hidden, cl::init(true),
    cl::desc("Allocate a function's pinned block where its locals are "
             "first needed rather than at entry, when that is outside any "
             "loop"));

// Static allocas aligned beyond this make LLVM realign the frame.
static constexpr uint64_t MaxFrameAlign = 16;

// Where a stackrestore's operand may come from: a stacksave, directly or
// through phis and selects, or (at -O0, where clang keeps it in a
// "saved_stack" local) a load from a local that only ever receives such
// values.
static bool comesFromStackSave(const Value *V,
                               SmallPtrSetImpl<const Value *> &Seen) {
  if (!Seen.insert(V).second)
    return true;
  if (auto *II = dyn_cast<IntrinsicInst>(V))
    return II->getIntrinsicID() == Intrinsic::stacksave;
  if (auto *Phi = dyn_cast<PHINode>(V)) {
    for (const Value *In : Phi->incoming_values())
      if (!comesFromStackSave(In, Seen))
        return false;
    return true;
  }
  if (auto *Sel = dyn_cast<SelectInst>(V))
    return comesFromStackSave(Sel->getTrueValue(), Seen) &&
           comesFromStackSave(Sel->getFalseValue(), Seen);
  auto *LI = dyn_cast<LoadInst>(V);
  if (!LI)
    return false;
  auto *Slot = dyn_cast<AllocaInst>(LI->getPointerOperand());
  if (!Slot || !Slot->isStaticAlloca())
    return false;
  for (const User *U : Slot->users()) {
    if (isa<LoadInst>(U))
      continue;
    auto *SI = dyn_cast<StoreInst>(U);
    if (!SI || SI->getPointerOperand() != Slot ||
        !comesFromStackSave(SI->getValueOperand(), Seen))
      return false;
  }
  return true;
}

bool canPinDynamicAllocas(const Function &F, std::string &Why) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->getIntrinsicID() == Intrinsic::stackrestore) {
          SmallPtrSet<const Value *, 8> Seen;
          if (!comesFromStackSave(II->getArgOperand(0), Seen)) {
            Why = "it restores a stack pointer that does not come from "
                  "llvm.stacksave";
            return false;
          }
        }
  return true;
}

namespace {

class Pinner {
public:
  explicit Pinner(Function &F)
      : F(F), M(*F.getParent()), C(F.getContext()), DL(M.getDataLayout()),
        I64(Type::getInt64Ty(C)), Ptr(PointerType::get(C, 0)) {}

  bool run(const MapVector<Value *, std::string> &Escaping,
           PinStats &Stats, const PinRemark &Remark,
           SmallVectorImpl<PinnedObject> &Pinned) {
    hoistEntryAllocas();
    SmallVector<std::pair<Value *, std::string>, 8> Static;
    SmallVector<AllocaInst *, 4> Dynamic;
    for (auto &[AI, Why] : Escaping)
      Static.push_back({AI, Why});
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *AI = dyn_cast<AllocaInst>(&I)) {
          if (!AI->isStaticAlloca())
            Dynamic.push_back(AI);
          else if (AI->getAlign().value() > MaxFrameAlign &&
                   !Escaping.count(AI))
            Static.push_back(
                {AI, "it is aligned to " +
                         std::to_string(AI->getAlign().value()) +
                         " bytes, beyond what a frame keeps without "
                         "realigning"});
        }
    bool HasEH = false, HasSetjmp = false;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB) {
        HasEH |= isa<LandingPadInst>(I);
        if (auto *CB = dyn_cast<CallBase>(&I))
          HasSetjmp |= CB->hasFnAttr(Attribute::ReturnsTwice);
      }
    if (Static.empty() && Dynamic.empty() && !HasEH && !HasSetjmp)
      return false;

    for (auto &[AI, Why] : Static)
      Remark(AI, Why);
    for (AllocaInst *AI : Dynamic)
      Remark(AI, "its size is known only at run time");

    BasicBlock &Entry = F.getEntryBlock();
    BasicBlock *Home = &Entry;
    if (Dynamic.empty() && !HasEH && !HasSetjmp)
      Home = sinkTarget(Static);
    bool Sunk = Home != &Entry;
    IRBuilder<> B(Home, Home == &Entry ? Entry.getFirstNonPHIOrDbgOrAlloca()
                                       : Home->getFirstInsertionPt());
    Value *Th = thread(B);
    Mark = tagged(B.CreateLoad(I64, field(B, Th, COPYSTACK_THREAD_PIN_TOP),
                               "pin.mark"));
    Value *After = Mark;
    if (!Static.empty()) {
      // Right after the mark, with no call between: the same thread, and
      // the top is the mark.
      After = pinStatic(B, Static, Pinned, Th, Mark);
      Stats.Static += Static.size();
    }
    for (AllocaInst *AI : Dynamic)
      pinDynamic(AI);
    Stats.Dynamic += Dynamic.size();
    if (!Dynamic.empty())
      pinStackSaves();

    SmallVector<Instruction *, 8> Exits, Pads, Jumps;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB) {
        if (isa<ReturnInst>(I) || isa<ResumeInst>(I))
          Exits.push_back(&I);
        else if (isa<LandingPadInst>(I))
          Pads.push_back(&I);
        else if (auto *CB = dyn_cast<CallBase>(&I))
          if (CB->hasFnAttr(Attribute::ReturnsTwice))
            Jumps.push_back(&I);
      }
    if (Sunk)
      restoreWhereTaken(Exits);
    else
      for (Instruction *I : Exits)
        restore(I, Mark);
    // A landing pad may still use this frame's pinned locals: put the top
    // back to just below them. With dynamic ones live at unknown depth,
    // leave the top alone (the frame's exit gives everything back).
    if (Dynamic.empty()) {
      for (Instruction *I : Pads)
        restore(&*I->getParent()->getFirstInsertionPt(), After);
      for (Instruction *I : Jumps)
        restoreAfter(I, After);
    }
    return true;
  }

private:
  Function &F;
  Module &M;
  LLVMContext &C;
  const DataLayout &DL;
  Type *I64;
  PointerType *Ptr;
  Value *Mark = nullptr;

  // The calling thread's __copystack_thread, each access of a field
  // relative to the thread it runs on, so a task that moved to another
  // thread between two accesses reaches the new thread's (target/Target.h).
  Value *thread(IRBuilder<> &B) { return Target::of(M).threadBlock(B); }

  Value *field(IRBuilder<> &B, Value *Th, uint64_t Offset) {
    return B.CreateConstGEP1_64(B.getInt8Ty(), Th, Offset);
  }

  // The runtime's entry (abi.h COPYSTACK_SYM_PIN_GROW/_RELEASE) makes the
  // foreign call and keeps every register but %r11: with preserve_most, the
  // values live across this rare call stay where they are, instead of
  // taking callee-saved registers (a push and a pop each on every path
  // through the function). Its arguments are in the thread's fields and
  // its result in %rax: the slow path adds no object to the frame (and no
  // frame pointer), and takes no argument register.
  CallInst *slowPathCall(IRBuilder<> &B, StringRef Name, Type *Result) {
    FunctionCallee Fn =
        M.getOrInsertFunction(Name, FunctionType::get(Result, false));
    if (auto *G = dyn_cast<Function>(Fn.getCallee())) {
      G->setCallingConv(CallingConv::PreserveMost);
      G->setDoesNotThrow();
    }
    CallInst *Call = B.CreateCall(Fn);
    Call->setCallingConv(CallingConv::PreserveMost);
    Call->setDoesNotThrow();
    return Call;
  }

  // Allocates Size bytes aligned to Align at B's insertion point; returns
  // the new top (the allocation) as an integer. B ends in the join block.
  // Th and Top, when given, are the thread and the top just read there.
  Value *allocate(IRBuilder<> &B, Value *Size, uint64_t Align,
                  Value *Th = nullptr, Value *Top = nullptr) {
    if (!Th)
      Th = thread(B);
    Value *TopP = field(B, Th, COPYSTACK_THREAD_PIN_TOP);
    if (!Top)
      Top = tagged(B.CreateLoad(I64, TopP));
    Value *Lo = tagged(B.CreateLoad(I64, field(B, Th, COPYSTACK_THREAD_PIN_LO)));
    Value *Need = B.CreateAdd(Size, B.getInt64(Align - 1));
    const uint64_t Mask = ~(Align - 1);
    // A constant size (every static local): the new top first, and too
    // little room when it falls below lo, compared as signed: an area
    // without a chunk has top and lo 0 (abi.h), and its new top is then
    // negative; user-space addresses are positive either way. A size known
    // only at run time (a VLA, alloca(n)) could make top - size wrap to an
    // address above top: there, the room itself against the bytes needed.
    Value *FastNew = nullptr, *Short;
    auto *CSize = dyn_cast<ConstantInt>(Size);
    if (CSize && CSize->getZExtValue() < (uint64_t(1) << 31)) {
      FastNew = B.CreateAnd(B.CreateSub(Top, Size), B.getInt64(Mask));
      Short = B.CreateICmpSLT(FastNew, Lo);
    } else {
      Short = B.CreateICmpULT(B.CreateSub(Top, Lo), Need);
    }
    BasicBlock *Head = B.GetInsertBlock();
    MDNode *Unlikely = MDBuilder(C).createUnlikelyBranchWeights();
    Instruction *SlowT =
        SplitBlockAndInsertIfThen(Short, B.GetInsertPoint(), false, Unlikely);
    // Too little room: a new chunk with Need bytes free, whose top the
    // runtime returns; the allocation is carved from it as from the old.
    IRBuilder<> Slow(SlowT);
    Slow.CreateStore(Need, field(Slow, Th, COPYSTACK_THREAD_PIN_ARG));
    Value *Got = slowPathCall(Slow, names::PinGrow, I64);
    BasicBlock *Join = SlowT->getSuccessor(0);
    B.SetInsertPoint(Join, Join->getFirstInsertionPt());
    Value *New;
    if (FastNew) {
      Value *SlowNew =
          Slow.CreateAnd(Slow.CreateSub(Got, Size), Slow.getInt64(Mask));
      PHINode *Phi = B.CreatePHI(I64, 2, "pin.top");
      Phi->addIncoming(FastNew, Head);
      Phi->addIncoming(SlowNew, SlowT->getParent());
      New = Phi;
    } else {
      PHINode *From = B.CreatePHI(I64, 2, "pin.from");
      From->addIncoming(Top, Head);
      From->addIncoming(Got, SlowT->getParent());
      New = B.CreateAnd(B.CreateSub(From, Size), B.getInt64(Mask), "pin.top");
    }
    B.CreateStore(New, TopP);
    return New;
  }

  Value *pinnedPointer(IRBuilder<> &B, Value *Int) {
    auto *P = cast<Instruction>(B.CreateIntToPtr(Int, Ptr, "pinned"));
    P->setMetadata(names::PinnedMD, MDNode::get(C, {}));
    return P;
  }

  static void dropLifetimeMarkers(AllocaInst *AI) {
    SmallVector<Instruction *, 4> Dead;
    for (User *U : AI->users())
      if (auto *II = dyn_cast<IntrinsicInst>(U))
        if (II->isLifetimeStartOrEnd())
          Dead.push_back(II);
    for (Instruction *I : Dead)
      I->eraseFromParent();
  }

  // Size and alignment of a static alloca or of a byval argument's copy.
  std::pair<uint64_t, uint64_t> sizeAndAlign(Value *V) {
    if (auto *AI = dyn_cast<AllocaInst>(V))
      return {AI->getAllocationSize(DL)->getFixedValue(),
              AI->getAlign().value()};
    auto *A = cast<Argument>(V);
    Type *T = A->getParamByValType();
    uint64_t Align = A->getParamAlign().valueOrOne().value();
    Align = std::max<uint64_t>(Align, DL.getABITypeAlign(T).value());
    return {DL.getTypeAllocSize(T).getFixedValue(), Align};
  }

  Value *pinStatic(IRBuilder<> &B,
                   ArrayRef<std::pair<Value *, std::string>> Static,
                   SmallVectorImpl<PinnedObject> &Pinned, Value *Th,
                   Value *Top) {
    // Lay the locals out in one block, each at its own alignment.
    uint64_t Offset = 0, MaxAlign = 16;
    SmallVector<uint64_t, 8> Offsets;
    for (auto &[V, Why] : Static) {
      auto [Size, A] = sizeAndAlign(V);
      MaxAlign = std::max(MaxAlign, A);
      Offset = alignTo(Offset, A);
      Offsets.push_back(Offset);
      Offset += Size;
    }
    uint64_t Total = alignTo(std::max<uint64_t>(Offset, 1), MaxAlign);
    Value *Base = allocate(B, B.getInt64(Total), MaxAlign, Th, Top);
    Value *BaseP = pinnedPointer(B, Base);
    // B inserts before the first instruction after the split, which may be
    // a lifetime marker about to go: make every address first.
    SmallVector<Value *, 8> At;
    for (unsigned I = 0; I < Static.size(); ++I)
      At.push_back(B.CreateConstGEP1_64(B.getInt8Ty(), BaseP, Offsets[I],
                                        Static[I].first->getName() +
                                            ".pinned"));
    for (unsigned I = 0; I < Static.size(); ++I) {
      Value *V = Static[I].first;
      Type *T = isa<AllocaInst>(V) ? cast<AllocaInst>(V)->getAllocatedType()
                                   : cast<Argument>(V)->getParamByValType();
      Pinned.push_back({T, At[I]});
    }
    for (unsigned I = 0; I < Static.size(); ++I)
      if (auto *AI = dyn_cast<AllocaInst>(Static[I].first)) {
        dropLifetimeMarkers(AI);
        AI->replaceAllUsesWith(At[I]);
        AI->eraseFromParent();
      }
    B.SetInsertPoint(cast<Instruction>(BaseP)->getParent(),
                     std::next(cast<Instruction>(At.back())->getIterator()));
    for (unsigned I = 0; I < Static.size(); ++I) {
      if (!isa<Argument>(Static[I].first))
        continue;
      // A byval argument: the caller's copy stays where the caller put it,
      // and the function works on its own copy in the pinned block from
      // here on (Go moves an escaping parameter to the heap the same way).
      auto *A = cast<Argument>(Static[I].first);
      auto [Size, Align] = sizeAndAlign(A);
      CallInst *Copy = B.CreateMemCpy(At[I], MaybeAlign(Align), A,
                                      A->getParamAlign(), Size);
      A->replaceUsesWithIf(At[I],
                           [Copy](Use &U) { return U.getUser() != Copy; });
      for (DbgVariableRecord *DVR : findDVRDeclares(A))
        DVR->replaceVariableLocationOp(A, At[I]);
      for (DbgDeclareInst *DDI : findDbgDeclares(A))
        DDI->replaceVariableLocationOp(A, At[I]);
    }
    return Base;
  }

  void pinDynamic(AllocaInst *AI) {
    IRBuilder<> B(AI);
    uint64_t Elem = DL.getTypeAllocSize(AI->getAllocatedType());
    Value *Count = B.CreateZExtOrTrunc(AI->getArraySize(), I64);
    Value *Size = B.CreateMul(Count, B.getInt64(Elem));
    uint64_t Align = std::max<uint64_t>(AI->getAlign().value(), 16);
    Value *Top = allocate(B, Size, Align);
    Value *P = pinnedPointer(B, Top);
    dropLifetimeMarkers(AI);
    AI->replaceAllUsesWith(P);
    AI->eraseFromParent();
  }

  // Where the static block can be allocated instead of at entry: the
  // nearest block that dominates every use of the pinned locals, if it is
  // in no cycle (allocating once per pass of a loop would take a block per
  // iteration). A lua_geti that needs its one pinned local only on its
  // slow path then pays for it only there. Entry when there is no better
  // place, or when the sinking is off; va_lists stay at entry (their slots
  // are named from the block's allocation, VaListSlots.h).
  BasicBlock *sinkTarget(ArrayRef<std::pair<Value *, std::string>> Static) {
    BasicBlock *Entry = &F.getEntryBlock();
    if (!SinkPinsOpt || Static.empty())
      return Entry;
    DominatorTree DT(F);
    BasicBlock *D = nullptr;
    for (auto &[V, Why] : Static) {
      Type *T = isa<AllocaInst>(V) ? cast<AllocaInst>(V)->getAllocatedType()
                                   : cast<Argument>(V)->getParamByValType();
      if (holdsVaList(DL, T))
        return Entry;
      for (Use &U : V->uses()) {
        auto *I = dyn_cast<Instruction>(U.getUser());
        if (!I)
          return Entry;
        if (auto *II = dyn_cast<IntrinsicInst>(I))
          if (II->isLifetimeStartOrEnd())
            continue;
        BasicBlock *BB = I->getParent();
        if (auto *P = dyn_cast<PHINode>(I))
          BB = P->getIncomingBlock(U);
        // A use that never runs (-O0 keeps unreachable blocks) constrains
        // nothing, and has no node in the tree.
        if (!DT.isReachableFromEntry(BB))
          continue;
        D = D ? DT.findNearestCommonDominator(D, BB) : BB;
      }
    }
    if (!D || D == Entry || D->isEHPad() || inCycle(D))
      return Entry;
    return D;
  }

  static bool inCycle(BasicBlock *D) {
    SmallVector<BasicBlock *, 16> Work(succ_begin(D), succ_end(D));
    SmallPtrSet<BasicBlock *, 32> Seen;
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      if (BB == D)
        return true;
      if (Seen.insert(BB).second)
        Work.append(succ_begin(BB), succ_end(BB));
    }
    return false;
  }

  // With the block allocated below entry, a return the allocation does not
  // dominate gives back only if its path took the block: the mark there is
  // ~0 (never a top) on the paths that did not.
  void restoreWhereTaken(ArrayRef<Instruction *> Exits) {
    auto *MarkI = cast<Instruction>(Mark);
    Constant *None = ConstantInt::getAllOnesValue(I64);
    DominatorTree DT(F);
    SSAUpdater SSA;
    SSA.Initialize(I64, "pin.mark.taken");
    SSA.AddAvailableValue(&F.getEntryBlock(), None);
    SSA.AddAvailableValue(MarkI->getParent(), Mark);
    SmallVector<std::pair<Instruction *, Value *>, 8> Work;
    for (Instruction *I : Exits)
      Work.push_back({I, DT.dominates(MarkI, I)
                             ? Mark
                             : SSA.GetValueInMiddleOfBlock(I->getParent())});
    for (auto [I, V] : Work) {
      if (V == Mark)
        restore(I, Mark);
      else if (V != None && !restoreOnEdges(I, V, None))
        restoreIfTaken(I, V, None);
    }
  }

  // Gives back before I if V, the mark or ~0, is a mark.
  void restoreIfTaken(Instruction *I, Value *V, Constant *None) {
    if (V == Mark) {
      restore(I, V);
      return;
    }
    IRBuilder<> B(I);
    Instruction *Then = SplitBlockAndInsertIfThen(
        B.CreateICmpNE(V, None), I->getIterator(), /*Unreachable=*/false);
    restore(Then, V);
  }

  // The usual return block is phis and the return, and V one of the phis:
  // the paths that come with ~0 (they never took the block) go on to the
  // return as they are, and the others through a block of their own that
  // gives back. A test of V at the return would compare a constant the
  // backend keeps in a register on the paths that took no block, on every
  // call (threading the branch is not something any pass after this one
  // does). False where the shape differs: then the test at the return.
  bool restoreOnEdges(Instruction *I, Value *V, Constant *None) {
    auto *Phi = dyn_cast<PHINode>(V);
    BasicBlock *E = I->getParent();
    if (!Phi || Phi->getParent() != E || E->getFirstNonPHIOrDbg() != I)
      return false;
    SmallVector<BasicBlock *, 4> Taken;
    bool Untaken = false;
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      BasicBlock *P = Phi->getIncomingBlock(K);
      if (Phi->getIncomingValue(K) == None)
        Untaken = true;
      else if (!is_contained(Taken, P))
        Taken.push_back(P);
      if (!isa<BranchInst, SwitchInst>(P->getTerminator()))
        return false;
    }
    if (!Untaken || Taken.empty())
      return false;
    BasicBlock *Give = SplitBlockPredecessors(E, Taken, ".pin.give");
    if (!Give)
      return false;
    Value *W = Phi->getIncomingValueForBlock(Give);
    if (Phi->use_empty())
      Phi->eraseFromParent();
    restoreIfTaken(Give->getTerminator(), W, None);
    return true;
  }

  // Puts the pinned top back to V before I.
  void restore(Instruction *I, Value *V) {
    IRBuilder<> B(I);
    Value *Th = thread(B);
    Value *Lo = tagged(B.CreateLoad(I64, field(B, Th, COPYSTACK_THREAD_PIN_LO)));
    Value *Hi = tagged(B.CreateLoad(I64, field(B, Th, COPYSTACK_THREAD_PIN_HI)));
    // In the thread's chunk: lo <= V <= hi (lo <= hi always: both 0 when
    // there is no chunk, and V is then 0 too on the fast path). Two
    // compares of V with the fields in memory, two branches.
    Value *Out = B.CreateOr(B.CreateICmpULT(V, Lo), B.CreateICmpUGT(V, Hi));
    Instruction *ThenT, *ElseT;
    SplitBlockAndInsertIfThenElse(Out, I->getIterator(), &ThenT, &ElseT,
                                  MDBuilder(C).createUnlikelyBranchWeights());
    IRBuilder<> Fast(ElseT);
    Fast.CreateStore(V, field(Fast, Th, COPYSTACK_THREAD_PIN_TOP));
    IRBuilder<> Slow(ThenT);
    Slow.CreateStore(V, field(Slow, Th, COPYSTACK_THREAD_PIN_ARG));
    slowPathCall(Slow, names::PinRelease, Type::getVoidTy(C));
  }

  void restoreAfter(Instruction *I, Value *V) {
    if (auto *II = dyn_cast<InvokeInst>(I)) {
      BasicBlock *Normal = II->getNormalDest();
      if (!Normal->getSinglePredecessor())
        Normal = SplitEdge(II->getParent(), Normal);
      restore(&*Normal->getFirstInsertionPt(), V);
      return;
    }
    restore(I->getNextNode(), V);
  }

  // The entry block is split below its allocas; allocas the optimizer left
  // further down must not end up below the split.
  void hoistEntryAllocas() {
    BasicBlock &Entry = F.getEntryBlock();
    Instruction *First = &*Entry.getFirstNonPHIOrDbgOrAlloca();
    SmallVector<AllocaInst *, 8> Late;
    for (auto It = First->getIterator(); It != Entry.end(); ++It)
      if (auto *AI = dyn_cast<AllocaInst>(&*It))
        if (isa<ConstantInt>(AI->getArraySize()))
          Late.push_back(AI);
    for (AllocaInst *AI : Late)
      AI->moveBefore(First);
  }

  // Pinned-area words are never stack addresses: keep them out of slots.
  Value *tagged(LoadInst *LI) {
    LI->setMetadata(names::PinnedMD, MDNode::get(C, {}));
    return LI;
  }

  // With every dynamic alloca pinned, nothing on the real stack needs
  // saving and restoring: a stacksave becomes the pinned top, and a
  // stackrestore gives back the pinned bytes of the dynamic allocas since
  // (the scope of a VLA in a loop, say). The saved value may go through a
  // local (-O0 keeps it in one); it is a pinned-area address, never a
  // stack address.
  void pinStackSaves() {
    SmallVector<IntrinsicInst *, 4> Saves, Restores;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
          if (II->getIntrinsicID() == Intrinsic::stacksave)
            Saves.push_back(II);
          else if (II->getIntrinsicID() == Intrinsic::stackrestore)
            Restores.push_back(II);
        }
    for (IntrinsicInst *Save : Saves) {
      IRBuilder<> B(Save);
      Value *Th = thread(B);
      Value *Top =
          tagged(B.CreateLoad(I64, field(B, Th, COPYSTACK_THREAD_PIN_TOP)));
      Value *P = pinnedPointer(B, Top);
      P->takeName(Save);
      Save->replaceAllUsesWith(P);
      Save->eraseFromParent();
    }
    for (IntrinsicInst *R : Restores) {
      IRBuilder<> B(R);
      Value *Top = B.CreatePtrToInt(R->getArgOperand(0), I64);
      restore(R, Top);
      R->eraseFromParent();
    }
  }
};

} // namespace

bool pinAllocas(Function &F,
                const MapVector<Value *, std::string> &Escaping,
                PinStats &Stats, const PinRemark &Remark,
                SmallVectorImpl<PinnedObject> &Pinned) {
  return Pinner(F).run(Escaping, Stats, Remark, Pinned);
}

} // namespace copystack
