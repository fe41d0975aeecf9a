//===- LoopPolls.cpp - loops that never reach a prologue check poll -------===//
#include "LoopPolls.h"
#include "Attributes.h"
#include "Names.h"
#include "target/Target.h"
#include "copystack/abi.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace copystack {

static cl::opt<bool> LoopPollsOpt(
    "copystack-loop-polls", cl::Hidden, cl::init(false),
    cl::desc("Poll for preemption at the back edges of loops that call no "
             "instrumented function (default: only in functions built "
             "with ThreadSanitizer, where the runtime sends no signal)"));

/// Whether F's loops poll: as the option says when it is given, else only
/// where the runtime's preemption signal is off (ThreadSanitizer builds:
/// runtime/src/sched/preempt_signal.h), so that a loop there is still
/// stopped after its time slice.
static bool wantsPolls(const Function &F) {
  if (LoopPollsOpt.getNumOccurrences())
    return LoopPollsOpt;
  return F.hasFnAttribute(Attribute::SanitizeThread);
}

// The most instructions a loop without a poll may run between two polls of
// the loops around it (or calls): about 20-60 us on this machine's cores,
// against a 10 ms time slice.
static constexpr uint64_t BoundedLoopWork = 1 << 16;

/// Whether every run of loop L (an innermost loop that calls nothing)
/// executes at most BoundedLoopWork instructions: its trip count has a
/// small constant bound.
static bool boundedWithoutPoll(const Loop &L, ScalarEvolution &SE) {
  if (!L.isInnermost())
    return false;
  uint64_t Size = 0;
  for (const BasicBlock *BB : L.blocks())
    for (const Instruction &I : *BB) {
      if (const auto *CB = dyn_cast<CallBase>(&I);
          CB && (CB->isInlineAsm() || !CB->getCalledFunction() ||
                 !CB->getCalledFunction()->isIntrinsic()))
        return false; // a call (an intrinsic may become one: it is counted)
      ++Size;
    }
  uint64_t Trips = SE.getSmallConstantMaxTripCount(&L);
  return Trips != 0 && Trips <= BoundedLoopWork / Size;
}

// Whether F has a value the backend may keep in a vector or x87 register
// across a poll: floating point or a vector, an argument's or any
// instruction's. The preemption stub keeps the general registers only (the
// scheduler runs other tasks on the thread while the task is parked); a
// poll that is a call the backend sees has the caller keep the others
// around it, on the slow path alone.
static bool hasVectorValues(const Function &F) {
  auto Vec = [](const Type *T) {
    return T->isFPOrFPVectorTy() || T->isVectorTy() || T->isX86_MMXTy() ||
           T->isX86_AMXTy();
  };
  for (const Argument &A : F.args())
    if (Vec(A.getType()))
      return true;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (hasValueOfType(I, Vec))
        return true;
  return false;
}

// The polls of a function that calls nothing else: the compare, and the
// call of the stub inside the same asm, so that the backend sees no call.
// The function stays a leaf: no frame pointer (Attributes.cpp), and no
// frame and no prologue check when it needs no stack; the stub's few
// hundred bytes come out of the guard band, as a leaf's libc call in place
// does (docs/abi.md). It never runs below the stack pointer: no red zone.
// The stub keeps every general register but %r11, and the function has no
// value in the others (hasVectorValues); the call goes through the GOT,
// never through a lazily bound PLT entry (Attributes.h, bindEagerly).
static void insertLeafPolls(Function &F,
                            ArrayRef<const BasicBlock *> Sources) {
  LLVMContext &Ctx = F.getContext();
  InlineAsm *Poll = Target::of(*F.getParent()).leafPoll(Ctx);
  F.addFnAttr(Attribute::NoRedZone);
  for (const BasicBlock *Src : Sources) {
    Instruction *Term = const_cast<BasicBlock *>(Src)->getTerminator();
    CallInst *Call = CallInst::Create(Poll, {}, "", Term);
    Call->setDebugLoc(Term->getDebugLoc());
    Call->setMetadata(names::LeafPollMD, MDNode::get(Ctx, {}));
  }
}

// Whether the call runs a prologue check or parks whenever it is made: the
// runtime's park and blocking wrappers, or a function of this module that
// calls something (a call pushes a return address, so it has a frame or
// makes a tail call, and LLVM checks both; instrumenting a function only
// adds calls, so this holds before and after the callee's turn). A leaf may have no check at all
// (Attributes.cpp), and a dispatch stub may be bound by the linker to a
// leaf of another object: a loop around such calls polls.
static bool surelyChecks(const CallBase &CB, const Policy &P) {
  if (P.classify(CB) != CallKind::Direct)
    return false;
  const auto *G =
      dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
  if (!G || G->hasFnAttribute(names::DispatchStubAttr))
    return false;
  return G->isDeclaration() || !makesNoCalls(*G);
}

unsigned insertLoopPolls(Function &F, const Policy &P) {
  if (!wantsPolls(F))
    return 0;
  SmallVector<std::pair<const BasicBlock *, const BasicBlock *>, 8> Edges;
  FindFunctionBackedges(F, Edges);
  if (Edges.empty())
    return 0;
  DominatorTree DT(F);
  // Blocks where a prologue check (a call to instrumented code) or a park
  // runs whenever the block does.
  SmallVector<const BasicBlock *, 8> Checking;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (const auto *CB = dyn_cast<CallBase>(&I))
        if (surelyChecks(*CB, P)) {
          Checking.push_back(&BB);
          break;
        }
  SmallVector<std::pair<const BasicBlock *, const BasicBlock *>, 8> Unchecked;
  for (auto [From, To] : Edges) {
    bool Checked = false;
    if (DT.dominates(To, From))
      for (const BasicBlock *BB : Checking)
        if (DT.dominates(BB, From) && DT.dominates(To, BB)) {
          Checked = true;
          break;
        }
    if (!Checked)
      Unchecked.push_back({From, To});
  }
  if (Unchecked.empty())
    return 0;
  // A short loop with a constant bound on its trips (over a fixed array,
  // the levels of a tree cursor) ends soon: the loop around it polls. The
  // loop analyses are built only for functions with an edge left to poll.
  LoopInfo LI(DT);
  TargetLibraryInfoImpl TLII(Triple(F.getParent()->getTargetTriple()));
  TargetLibraryInfo TLI(TLII, &F);
  AssumptionCache AC(F);
  ScalarEvolution SE(F, TLI, AC, DT, LI);
  SmallSetVector<const BasicBlock *, 8> Sources;
  for (auto [From, To] : Unchecked) {
    const Loop *L = LI.getLoopFor(To);
    if (!(L && L->getHeader() == To && L->contains(From) &&
          boundedWithoutPoll(*L, SE)))
      Sources.insert(From);
  }

  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  if (makesNoCalls(F) && !hasVectorValues(F)) {
    insertLeafPolls(F, Sources.getArrayRef());
    return Sources.size();
  }
  FunctionCallee Stub = M.getOrInsertFunction(
      names::Preempt, FunctionType::get(Type::getVoidTy(Ctx), false));
  if (auto *StubF = dyn_cast<Function>(Stub.getCallee())) {
    StubF->setDoesNotThrow();
    StubF->setCallingConv(CallingConv::PreserveMost);
  }
  // The poll as one instruction with its branch: an asm goto. A volatile
  // load of the word, which is what plain IR can say, is a load and a
  // compare (the backend folds no volatile load into the compare), and a
  // non-volatile one could be hoisted out of the loop.
  InlineAsm *Poll = Target::of(*F.getParent()).pollBranch(Ctx);
  for (const BasicBlock *Src : Sources) {
    auto *BB = const_cast<BasicBlock *>(Src);
    Instruction *Term = BB->getTerminator();
    DebugLoc DL = Term->getDebugLoc();
    BasicBlock *Rest =
        SplitBlock(BB, Term, static_cast<DominatorTree *>(nullptr), nullptr,
                   nullptr, BB->getName() + ".polled");
    BasicBlock *Preempt = BasicBlock::Create(Ctx, "cs.preempt", &F, Rest);
    IRBuilder<> TB(Preempt);
    TB.SetCurrentDebugLocation(DL);
    CallInst *Call = TB.CreateCall(Stub);
    Call->setDoesNotThrow();
    Call->setCallingConv(CallingConv::PreserveMost);
    Call->addFnAttr(Attribute::Cold);
    TB.CreateBr(Rest);
    BB->getTerminator()->eraseFromParent();
    CallBrInst *Br = CallBrInst::Create(Poll, Rest, {Preempt}, {}, "", BB);
    Br->setDebugLoc(DL);
  }
  return Sources.size();
}

} // namespace copystack
