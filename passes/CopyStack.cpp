//===- CopyStack.cpp - the copystack instrumentation pass ----------------===//
#include "CopyStack.h"
#include "EscapeAnalysis.h"
#include "ForeignCalls.h"
#include "FrameMaps.h"
#include "PinnedAllocas.h"
#include "Policy.h"
#include "SafepointSpills.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace copystack {

static cl::opt<bool> VerifyEach(
    "copystack-verify", cl::Hidden, cl::init(false),
    cl::desc("Run the IR verifier after each copystack step"));

namespace {

// FastISel (-O0) lowers memcpy, memmove and memset intrinsics to calls
// through the PLT, ignoring RtLibUseGOT. In functions it compiles, make
// them plain calls to the libc functions, which bindEagerly() then binds at
// load time. Small constant sizes stay intrinsics: FastISel inlines them.
void memIntrinsicsToCalls(Function &F) {
  if (!F.hasOptNone())
    return;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  Type *SizeTy = M.getDataLayout().getIntPtrType(C);
  SmallVector<MemIntrinsic *, 8> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        auto *Len = dyn_cast<ConstantInt>(MI->getLength());
        if (!Len || Len->getZExtValue() > 32)
          Work.push_back(MI);
      }
  for (MemIntrinsic *MI : Work) {
    IRBuilder<> B(MI);
    Value *Len = B.CreateZExtOrTrunc(MI->getLength(), SizeTy);
    if (auto *MS = dyn_cast<MemSetInst>(MI)) {
      FunctionCallee Fn = M.getOrInsertFunction(
          "memset", FunctionType::get(Ptr, {Ptr, B.getInt32Ty(), SizeTy},
                                      false));
      B.CreateCall(Fn, {MS->getDest(),
                        B.CreateZExt(MS->getValue(), B.getInt32Ty()), Len});
    } else {
      auto *MT = cast<MemTransferInst>(MI);
      const char *Name = isa<MemMoveInst>(MT) ? "memmove" : "memcpy";
      FunctionCallee Fn = M.getOrInsertFunction(
          Name, FunctionType::get(Ptr, {Ptr, Ptr, SizeTy}, false));
      B.CreateCall(Fn, {MT->getDest(), MT->getSource(), Len});
    }
    MI->eraseFromParent();
  }
}

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
  // Locals sit at fixed %rbp offsets only in frames LLVM does not realign:
  // over-aligned locals are pinned, and AVX spills use unaligned moves.
  F.addFnAttr("no-realign-stack");
  F.setUWTableKind(UWTableKind::Async);
  // Prefix data sits right before the entry; keep the entry aligned.
  if (!F.getAlign() || F.getAlign()->value() < 16)
    F.setAlignment(Align(16));
}

// The first call through a lazily bound PLT entry runs the dynamic linker's
// resolver on the caller's stack, with an XSAVE area far larger than the
// guard band. Bind every callee of instrumented code at load time instead:
// calls through the GOT (what -fno-plt does), libcalls the backend emits
// included. That covers definitions a shared library's own code calls
// through its PLT because they may be interposed.
void bindEagerly(Module &M) {
  for (Function &F : M)
    if (!F.isIntrinsic() && !F.isDSOLocal() && !F.hasLocalLinkage())
      F.addFnAttr(Attribute::NonLazyBind);
  M.setRtLibUseGOT();
}

// A local's name for remarks: its debug-info variable, its IR name, or
// its size.
std::string localName(AllocaInst *AI) {
  for (DbgVariableRecord *DVR : findDVRDeclares(AI))
    return "'" + DVR->getVariable()->getName().str() + "'";
  for (DbgDeclareInst *DDI : findDbgDeclares(AI))
    return "'" + DDI->getVariable()->getName().str() + "'";
  if (AI->hasName())
    return "'" + AI->getName().str() + "'";
  std::optional<TypeSize> Size =
      AI->getAllocationSize(AI->getDataLayout());
  return "a " +
         (Size ? std::to_string(Size->getKnownMinValue()) + "-byte"
               : std::string("variable-size")) +
         " local";
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

  inferCaptures(M, P);
  ThunkCache Thunks(M);
  for (Function *F : Work) {
    ForeignCallStats FS;
    SpillStats SS;
    FrameMapStats MS;
    PinStats PS;
    OptimizationRemarkEmitter PinORE(F);
    pinAllocas(*F, findEscapingAllocas(*F), PS,
               [&](AllocaInst *AI, StringRef Why) {
                 PinORE.emit([&] {
                   return OptimizationRemark("copystack", "MovedOffStack", AI)
                          << "'" << F->getName() << "': " << localName(AI)
                          << " moved off the copyable stack: " << Why;
                 });
               });
    checkStep(*F, "pinned allocas");
    memIntrinsicsToCalls(*F);
    rewriteForeignCalls(*F, P, Thunks, FS);
    checkStep(*F, "foreign calls");
    insertLandingPadHooks(*F);
    spillAcrossSafepoints(*F, P, SS);
    checkStep(*F, "safepoint spills");
    emitFrameMap(*F, MS);
    checkStep(*F, "frame maps");
    setAttributes(*F);

    PinORE.emit([&] {
      return OptimizationRemark("copystack", "Instrumented", F)
             << "'" << F->getName() << "': " << ore::NV("Objects", MS.Objects)
             << " stack objects (" << ore::NV("PointerWords", MS.PointerWords)
             << " pointer words, "
             << ore::NV("Conservative", MS.ConservativeObjects)
             << " scanned whole), " << ore::NV("Spilled", SS.Values)
             << " values spilled across safepoints, "
             << ore::NV("Foreign", FS.Foreign) << " foreign and "
             << ore::NV("Dispatched", FS.Dispatched) << " dispatched calls, "
             << ore::NV("Pinned", PS.Static + PS.Dynamic) << " pinned locals";
    });
  }
  if (!Work.empty())
    bindEagerly(M);
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
