//===- CopyStack.cpp - the copystack instrumentation pass ----------------===//
#include "CopyStack.h"
#include "ForeignCalls.h"
#include "FrameMaps.h"
#include "Policy.h"
#include "SafepointSpills.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace copystack {

static cl::opt<bool> VerifyEach(
    "copystack-verify", cl::Hidden, cl::init(false),
    cl::desc("Run the IR verifier after each copystack step"));

namespace {

void insertLandingPadHooks(Function &F) {
  Module &M = *F.getParent();
  FunctionCallee Hook = M.getOrInsertFunction(
      names::LandingPad, FunctionType::get(Type::getVoidTy(M.getContext()),
                                           false));
  for (BasicBlock &BB : F)
    if (auto *LP = dyn_cast<LandingPadInst>(BB.getFirstNonPHI())) {
      IRBuilder<> B(LP->getNextNode());
      CallInst *Call = B.CreateCall(Hook);
      Call->setDoesNotThrow();
    }
}

void setAttributes(Function &F) {
  F.addFnAttr("split-stack");
  F.addFnAttr("frame-pointer", "all");
  F.setUWTableKind(UWTableKind::Async);
  // Prefix data sits right before the entry; keep the entry aligned.
  if (!F.getAlign() || F.getAlign()->value() < 16)
    F.setAlignment(Align(16));
}

void checkStep(Function &F, const char *Step) {
  if (!VerifyEach)
    return;
  if (verifyFunction(F, &errs()))
    report_fatal_error(Twine("copystack: IR broken after ") + Step + " in " +
                       F.getName());
}

} // namespace

PreservedAnalyses CopyStackPass::run(Module &M, ModuleAnalysisManager &) {
  // -fplugin and -fpass-plugin together register the pass twice.
  if (M.getModuleFlag(names::ModuleFlag))
    return PreservedAnalyses::all();
  M.addModuleFlag(Module::Warning, names::ModuleFlag, 1);

  Policy P(M);
  SmallVector<Function *, 32> Work;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (P.isInstrumented(F)) {
      Work.push_back(&F);
      continue;
    }
    if (F.hasFnAttribute(names::GeneratedAttr))
      continue;
    OptimizationRemarkEmitter ORE(&F);
    ORE.emit([&] {
      return OptimizationRemarkMissed("copystack", "SystemStack", &F)
             << "'" << F.getName() << "' runs on the system stack: "
             << P.reason(F);
    });
  }

  ThunkCache Thunks(M);
  for (Function *F : Work) {
    ForeignCallStats FS;
    SpillStats SS;
    FrameMapStats MS;
    rewriteForeignCalls(*F, P, Thunks, FS);
    checkStep(*F, "foreign calls");
    insertLandingPadHooks(*F);
    spillAcrossSafepoints(*F, P, SS);
    checkStep(*F, "safepoint spills");
    emitFrameMap(*F, MS);
    checkStep(*F, "frame maps");
    setAttributes(*F);

    OptimizationRemarkEmitter ORE(F);
    ORE.emit([&] {
      return OptimizationRemark("copystack", "Instrumented", F)
             << "'" << F->getName() << "': " << ore::NV("Objects", MS.Objects)
             << " stack objects (" << ore::NV("PointerWords", MS.PointerWords)
             << " pointer words, "
             << ore::NV("Conservative", MS.ConservativeObjects)
             << " scanned whole), " << ore::NV("Spilled", SS.Values)
             << " values spilled across safepoints, "
             << ore::NV("Foreign", FS.Foreign) << " foreign and "
             << ore::NV("Dispatched", FS.Dispatched) << " dispatched calls";
    });
  }
  return PreservedAnalyses::none();
}

void registerPasses(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "copystack")
          return false;
        MPM.addPass(CopyStackPass());
        return true;
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(CopyStackPass());
      });
}

} // namespace copystack
