//===- CopyStack.cpp - the copystack instrumentation pass ----------------===//
#include "CopyStack.h"
#include "Attributes.h"
#include "EscapeAnalysis.h"
#include "Exceptions.h"
#include "ForeignCalls.h"
#include "FrameMaps.h"
#include "MemIntrinsics.h"
#include "PinnedAllocas.h"
#include "Policy.h"
#include "SafepointSpills.h"
#include "Setjmp.h"
#include "StackDepthChecks.h"
#include "ThreadIdentity.h"
#include "VaListSlots.h"
#include "VarargShims.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

#define DEBUG_TYPE "copystack"

STATISTIC(NumInstrumented, "Functions instrumented");
STATISTIC(NumSystemStack, "Functions left on the thread's stack");
STATISTIC(NumPinned, "Locals moved to the pinned area");
STATISTIC(NumSpilled, "Values given slots across safepoints");
STATISTIC(NumForeign, "Calls routed to the thread's stack");
STATISTIC(NumDispatched, "Calls dispatched on the callee's prefix");
STATISTIC(NumMapObjects, "Stack objects described by frame maps");

namespace copystack {

static cl::opt<bool> VerifyEach(
    "copystack-verify", cl::Hidden, cl::init(false),
    cl::desc("Run the IR verifier after each copystack step"));

namespace {

// A local's name for remarks: its debug-info variable, its IR name, or
// its size.
std::string localName(Value *V) {
  for (DbgVariableRecord *DVR : findDVRDeclares(V))
    return "'" + DVR->getVariable()->getName().str() + "'";
  for (DbgDeclareInst *DDI : findDbgDeclares(V))
    return "'" + DDI->getVariable()->getName().str() + "'";
  if (V->hasName())
    return "'" + V->getName().str() + "'";
  if (auto *A = dyn_cast<Argument>(V))
    return "argument " + std::to_string(A->getArgNo() + 1);
  auto *AI = cast<AllocaInst>(V);
  std::optional<TypeSize> Size =
      AI->getAllocationSize(AI->getDataLayout());
  return "a " +
         (Size ? std::to_string(Size->getKnownMinValue()) + "-byte"
               : std::string("variable-size")) +
         " local";
}

// Go's "moved to heap: x", for a local or a byval argument.
OptimizationRemark movedOffStack(Function &F, Value *Local, StringRef Why) {
  auto R = isa<Instruction>(Local)
               ? OptimizationRemark("copystack", "MovedOffStack",
                                    cast<Instruction>(Local))
               : OptimizationRemark("copystack", "MovedOffStack",
                                    F.getSubprogram(), &F.getEntryBlock());
  R << "'" << F.getName() << "': " << localName(Local)
    << " moved off the copyable stack: " << Why;
  return R;
}

void checkStep(Function &F, const char *Step) {
  if (!VerifyEach)
    return;
  if (verifyFunction(F, &errs()))
    report_fatal_error(Twine("copystack: IR broken after ") + Step + " in " +
                       F.getName());
}

} // namespace

// The steps on one instrumented function, in CopyStack.h's order.
static void instrument(Function &F, const Policy &P, ThunkCache &Thunks) {
  ForeignCallStats FS;
  SpillStats SS;
  FrameMapStats MS;
  PinStats PS;
  OptimizationRemarkEmitter ORE(&F);
  MapVector<Value *, std::string> Escaping;
  SmallVector<PinnedObject, 8> Pinned;
  if (!F.hasFnAttribute(names::VarargShimAttr))
    Escaping = findEscapingLocals(F);
  pinAllocas(F, Escaping, PS,
             [&](Value *Local, StringRef Why) {
               ORE.emit([&] { return movedOffStack(F, Local, Why); });
             },
             Pinned);
  checkStep(F, "pinned allocas");
  addVaListSlots(F, Pinned);
  memIntrinsicsToCalls(F);
  prepareExceptions(F);
  prepareSetjmp(F);
  lowerThreadLocalAddresses(F);
  rewriteForeignCalls(F, P, Thunks, FS);
  checkStep(F, "foreign calls");
  spillAcrossSafepoints(F, P, SS);
  checkStep(F, "safepoint spills");
  emitFrameMap(F, MS);
  checkStep(F, "frame maps");
  setAttributes(F);

  ++NumInstrumented;
  NumPinned += PS.Static + PS.Dynamic;
  NumSpilled += SS.Values;
  NumForeign += FS.Foreign;
  NumDispatched += FS.Dispatched;
  NumMapObjects += MS.Objects;
  ORE.emit([&] {
    return OptimizationRemark("copystack", "Instrumented", &F)
           << "'" << F.getName() << "': " << ore::NV("Objects", MS.Objects)
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

PreservedAnalyses CopyStackPass::run(Module &M, ModuleAnalysisManager &) {
  // -fplugin and -fpass-plugin together register the pass twice.
  if (M.getModuleFlag(names::ModuleFlag))
    return PreservedAnalyses::all();
  M.addModuleFlag(Module::Warning, names::ModuleFlag, 1);

  readAnnotations(M);
  splitVariadicFunctions(M);
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
    // A construct copystack cannot support on a copyable stack: say so. The
    // function stays correct on the thread's stack, but it and everything
    // it calls can neither grow a copyable stack nor park a task.
    if (!F.hasFnAttribute(names::NoSplitAttr))
      M.getContext().diagnose(DiagnosticInfoUnsupported(
          F,
          "copystack: '" + F.getName() +
              "' runs on the thread's own stack, not a copyable one: " +
              P.reason(F),
          DiagnosticLocation(F.getSubprogram()), DS_Warning));
    ++NumSystemStack;
    OptimizationRemarkEmitter ORE(&F);
    ORE.emit([&] {
      return OptimizationRemarkMissed("copystack", "SystemStack", &F)
             << "'" << F.getName() << "' runs on the system stack: "
             << P.reason(F);
    });
  }

  warnStackDepthChecks(M, Work);
  inferCaptures(M, P);
  ThunkCache Thunks(M);
  for (Function *F : Work)
    instrument(*F, P, Thunks);
  // Functions on the system stack never change threads mid-call: their
  // thread_local addresses go back to the intrinsic.
  SmallPtrSet<Function *, 32> InWork(Work.begin(), Work.end());
  for (Function &F : M)
    if (!F.isDeclaration() && !InWork.count(&F))
      restoreThreadLocalAddresses(F);
  if (Function *TLSAddr = M.getFunction("__copystack.tls.address"))
    if (TLSAddr->use_empty())
      TLSAddr->eraseFromParent();
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
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "copystack-thread-identity")
          return false;
        MPM.addPass(ThreadIdentityPass());
        return true;
      });
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(ThreadIdentityPass());
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(CopyStackPass());
      });
}

} // namespace copystack
