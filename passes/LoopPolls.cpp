//===- LoopPolls.cpp - loops that never reach a prologue check poll -------===//
#include "LoopPolls.h"
#include "Names.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace copystack {

static cl::opt<bool> LoopPollsOpt(
    "copystack-loop-polls", cl::Hidden, cl::init(true),
    cl::desc("Poll for preemption at the back edges of loops that call no "
             "instrumented function"));

// x86-64's address space for %fs-relative addresses.
static constexpr unsigned FSAddressSpace = 257;

unsigned insertLoopPolls(Function &F, const Policy &P) {
  if (!LoopPollsOpt)
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
        if (P.classify(*CB) == CallKind::Direct) {
          Checking.push_back(&BB);
          break;
        }
  SmallPtrSet<const BasicBlock *, 8> Sources;
  for (auto [From, To] : Edges) {
    bool Checked = false;
    if (DT.dominates(To, From))
      for (const BasicBlock *BB : Checking)
        if (DT.dominates(BB, From) && DT.dominates(To, BB)) {
          Checked = true;
          break;
        }
    if (!Checked)
      Sources.insert(From);
  }

  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  Type *I64 = Type::getInt64Ty(Ctx);
  FunctionCallee Stub = M.getOrInsertFunction(
      names::Preempt, FunctionType::get(Type::getVoidTy(Ctx), false));
  if (auto *StubF = dyn_cast<Function>(Stub.getCallee())) {
    StubF->setDoesNotThrow();
    StubF->setCallingConv(CallingConv::PreserveMost);
  }
  Constant *Slot =
      ConstantExpr::getIntToPtr(ConstantInt::get(I64, COPYSTACK_TCB_LIMIT),
                                PointerType::get(Ctx, FSAddressSpace));
  MDNode *Rare = MDBuilder(Ctx).createBranchWeights(1, 1u << 20);
  for (const BasicBlock *Src : Sources) {
    Instruction *Term = const_cast<BasicBlock *>(Src)->getTerminator();
    IRBuilder<> B(Term);
    B.SetCurrentDebugLocation(Term->getDebugLoc());
    LoadInst *Limit = B.CreateLoad(I64, Slot, /*isVolatile=*/true, "cs.limit");
    Value *Yield = B.CreateICmpEQ(
        Limit, ConstantInt::get(I64, COPYSTACK_PREEMPT_LIMIT), "cs.yield");
    Instruction *Then = SplitBlockAndInsertIfThen(Yield, Term->getIterator(),
                                                  /*Unreachable=*/false, Rare);
    Then->getParent()->setName("cs.preempt");
    IRBuilder<> TB(Then);
    TB.SetCurrentDebugLocation(Term->getDebugLoc());
    CallInst *Call = TB.CreateCall(Stub);
    Call->setDoesNotThrow();
    Call->setCallingConv(CallingConv::PreserveMost);
  }
  return Sources.size();
}

} // namespace copystack
