//===- CopyStack.cpp - the copystack instrumentation pass ----------------===//
#include "CopyStack.h"
#include "LibcInPlace.h"
#include "Attributes.h"
#include "BlockingCalls.h"
#include "DispatchStubs.h"
#include "EscapeAnalysis.h"
#include "Exceptions.h"
#include "ForeignCalls.h"
#include "FrameMaps.h"
#include "LoopPolls.h"
#include "MemIntrinsics.h"
#include "PinnedAllocas.h"
#include "Policy.h"
#include "Sanitizers.h"
#include "Setjmp.h"
#include "StackDepthChecks.h"
#include "TargetCheck.h"
#include "ThreadIdentity.h"
#include "VaListSlots.h"
#include "VarargShims.h"
#include "target/Target.h"

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
STATISTIC(NumForeign, "Calls routed to the thread's stack");
STATISTIC(NumDispatched, "Calls dispatched on the callee's prefix");
STATISTIC(NumLibcInPlace, "libc calls made in place when there is room");
STATISTIC(NumLinked, "Calls sent through a dispatch stub the linker binds");
STATISTIC(NumMapObjects, "Stack objects described by frame maps");
STATISTIC(NumBlockingCalls, "Blocking calls redirected to parking wrappers");
STATISTIC(NumLoopPolls, "Preemption polls at loop back edges");
STATISTIC(NumThreadOwnChecks, "TSan checks dropped on the thread's own memory");

namespace copystack {

static cl::opt<bool> VerifyEach(
    "copystack-verify", cl::Hidden, cl::init(false),
    cl::desc("Run the IR verifier after each copystack step"));

static cl::opt<bool> DispatchStubsOpt(
    "copystack-dispatch-stubs", cl::Hidden, cl::init(true),
    cl::desc("Send calls of other objects' functions through stubs the "
             "linker binds to instrumented definitions (DispatchStubs.h); "
             "off: test the callee's prefix at every such call"));

static cl::opt<bool> LibcInPlaceOpt(
    "copystack-libc-in-place", cl::Hidden, cl::init(true),
    cl::desc("Call glibc's allocator, mutex and string-scan functions in "
             "place on the task stack when the runtime allows it and there "
             "is room (LibcInPlace.h); off: always a foreign call"));

namespace {

// The source variable a local or byval argument holds, and where it is
// declared, from its debug records: a declare (whose location is the
// declaration's, column included) at -O0; at -O1 and above InstCombine has
// often turned the declare of an escaping local into values that use its
// address (then the variable's line).
std::pair<const DILocalVariable *, DebugLoc> variableOf(Value *V) {
  for (DbgVariableRecord *DVR : findDVRDeclares(V))
    return {DVR->getVariable(), DVR->getDebugLoc()};
  for (DbgDeclareInst *DDI : findDbgDeclares(V))
    return {DDI->getVariable(), DDI->getDebugLoc()};
  SmallVector<DbgValueInst *, 2> Values;
  SmallVector<DbgVariableRecord *, 2> Records;
  findDbgValues(Values, V, &Records);
  for (DbgVariableRecord *DVR : Records)
    return {DVR->getVariable(), DebugLoc()};
  for (DbgValueInst *DVI : Values)
    return {DVI->getVariable(), DebugLoc()};
  return {nullptr, DebugLoc()};
}

// A local's name for the report: its variable, its IR name, or its size
// and function.
std::string localName(Function &F, Value *V, const DILocalVariable *Var) {
  if (Var)
    return Var->getName().str();
  if (V->hasName())
    return V->getName().str();
  if (auto *A = dyn_cast<Argument>(V))
    return "argument " + std::to_string(A->getArgNo() + 1) + " of '" +
           F.getName().str() + "'";
  auto *AI = cast<AllocaInst>(V);
  std::optional<TypeSize> Size = AI->getAllocationSize(AI->getDataLayout());
  return "a " +
         (Size ? std::to_string(Size->getKnownMinValue()) + "-byte"
               : std::string("variable-size")) +
         " local of '" + F.getName().str() + "'";
}

// Go's "moved to heap: x" (-gcflags=-m): "moved off the stack: x (why)",
// at the variable's declaration when debug information has it.
OptimizationRemark movedOffStack(Function &F, Value *Local, StringRef Why) {
  auto [Var, Declared] = variableOf(Local);
  DiagnosticLocation Loc;
  if (Declared && Declared.getLine() == (Var ? Var->getLine() : 0))
    Loc = DiagnosticLocation(Declared);
  else if (Var && Var->getLine())
    Loc = DiagnosticLocation(DebugLoc(DILocation::get(
        F.getContext(), Var->getLine(), 0, Var->getScope())));
  else if (auto *I = dyn_cast<Instruction>(Local); I && I->getDebugLoc())
    Loc = DiagnosticLocation(I->getDebugLoc());
  else
    Loc = DiagnosticLocation(F.getSubprogram());
  OptimizationRemark R(names::EscapeRemark, "MovedOffStack", Loc,
                       &F.getEntryBlock());
  R << "moved off the stack: " << localName(F, Local, Var) << " (" << Why
    << ")";
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

// Where the check runs after the frame (AArch64), a function whose static
// locals take more than kUncheckedFrameLocals (kO0FrameLocals for an
// optnone one) keeps none of them in its frame (Policy.h): they join the
// escaping ones in the pinned area, and its frame is what the check after
// it covers.
static void pinBigFrame(Function &F,
                        MapVector<Value *, std::string> &Escaping) {
  if (Target::of(*F.getParent()).probesLargeFrames())
    return;
  const bool O0 = F.hasFnAttribute(Attribute::OptimizeNone);
  const DataLayout &DL = F.getDataLayout();
  SmallVector<AllocaInst *, 16> Static;
  uint64_t Bytes = 0;
  for (Instruction &I : F.getEntryBlock())
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (AI->isStaticAlloca())
        if (std::optional<TypeSize> Size = AI->getAllocationSize(DL))
          if (!Size->isScalable()) {
            Static.push_back(AI);
            Bytes += Size->getFixedValue();
          }
  if (Bytes <= (O0 ? kO0FrameLocals : kUncheckedFrameLocals))
    return;
  for (AllocaInst *AI : Static)
    if (!Escaping.count(AI))
      Escaping[AI] = "its function's " + std::to_string(Bytes) +
                     " bytes of locals" + (O0 ? " at -O0" : "") +
                     ", where the check runs after the frame "
                     "(docs/porting.md)";
}

// The steps on one instrumented function, in CopyStack.h's order.
static void instrument(Function &F, const Policy &P, ThunkCache &Thunks,
                       DispatchStubs &Stubs,
                       SmallVectorImpl<Function *> &WantOwnCheck) {
  ForeignCallStats FS;
  FrameMapStats MS;
  PinStats PS;
  OptimizationRemarkEmitter ORE(&F);
  MapVector<Value *, std::string> Escaping;
  SmallVector<PinnedObject, 8> Pinned;
  if (!F.hasFnAttribute(names::VarargShimAttr))
    Escaping = findEscapingLocals(F);
  pinBigFrame(F, Escaping);
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
  NumThreadOwnChecks += dropThreadOwnAccessChecks(F);
  lowerThreadLocalAddresses(F);
  if (LibcInPlaceOpt && !F.hasFnAttribute(names::DispatchStubAttr))
    NumLibcInPlace += callLibcInPlace(F, P);
  if (DispatchStubsOpt)
    NumLinked += Stubs.redirect(F, P);
  rewriteForeignCalls(F, P, Thunks, FS);
  checkStep(F, "foreign calls");
  NumLoopPolls += insertLoopPolls(F, P);
  checkStep(F, "loop polls");
  emitFrameMap(F, MS);
  checkStep(F, "frame maps");
  if (setAttributes(F, /*HasLocals=*/MS.Locals != 0))
    WantOwnCheck.push_back(&F);

  ++NumInstrumented;
  NumPinned += PS.Static + PS.Dynamic;
  NumForeign += FS.Foreign;
  NumDispatched += FS.Dispatched;
  NumMapObjects += MS.Objects;
  ORE.emit([&] {
    return OptimizationRemark(names::StatsRemark, "Instrumented", &F)
           << "'" << F.getName() << "': " << ore::NV("Objects", MS.Objects)
           << " stack objects (" << ore::NV("PointerWords", MS.PointerWords)
           << " pointer words, "
           << ore::NV("Conservative", MS.ConservativeObjects)
           << " scanned whole), " << ore::NV("Foreign", FS.Foreign)
           << " foreign and "
           << ore::NV("Dispatched", FS.Dispatched) << " dispatched calls, "
           << ore::NV("Pinned", PS.Static + PS.Dynamic) << " pinned locals";
  });
}

PreservedAnalyses CopyStackPass::run(Module &M, ModuleAnalysisManager &) {
  // -fplugin and -fpass-plugin together register the pass twice.
  if (M.getModuleFlag(names::ModuleFlag))
    return PreservedAnalyses::all();
  std::string Unsupported = unsupportedModule(M);
  if (Unsupported.empty())
    Unsupported = unsupportedSanitizer(M);
  if (!Unsupported.empty()) {
    M.getContext().emitError(Unsupported);
    return PreservedAnalyses::all();
  }
  M.addModuleFlag(Module::Warning, names::ModuleFlag, 1);

  readAnnotations(M);
  splitVariadicFunctions(M);
  Policy P(M);
  NumBlockingCalls += redirectBlockingCalls(M, P);
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
      return OptimizationRemarkMissed(names::EscapeRemark, "SystemStack", &F)
             << "'" << F.getName() << "' runs on the system stack: "
             << P.reason(F);
    });
  }

  if (NamedMDNode *Checked = M.getNamedMetadata(names::DepthCheckedMD))
    Checked->eraseFromParent();
  else
    warnStackDepthChecks(M, Work);
  inferCaptures(M, P);
  ThunkCache Thunks(M);
  DispatchStubs Stubs(M);
  SmallVector<Function *, 32> WantOwnCheck;
  for (Function *F : Work)
    instrument(*F, P, Thunks, Stubs, WantOwnCheck);
  for (Function *S : Stubs.created())
    instrument(*S, P, Thunks, Stubs, WantOwnCheck);
  placeOwnChecks(WantOwnCheck);
  if (DispatchStubsOpt)
    defineDispatchAliases(M, Work);
  // Functions on the system stack never change threads mid-call: their
  // thread_local addresses go back to the intrinsic.
  SmallPtrSet<Function *, 32> InWork(Work.begin(), Work.end());
  InWork.insert(Stubs.created().begin(), Stubs.created().end());
  for (Function &F : M)
    if (!F.isDeclaration() && !InWork.count(&F))
      restoreThreadLocalAddresses(F);
  if (Function *TLSAddr = M.getFunction("__copystack.tls.address"))
    if (TLSAddr->use_empty())
      TLSAddr->eraseFromParent();
  if (!Work.empty()) {
    bindEagerly(M);
    referenceRuntime(M);
  }
  return PreservedAnalyses::none();
}

PreservedAnalyses StackDepthCheckPass::run(Module &M,
                                           ModuleAnalysisManager &) {
  // Once (-fplugin and -fpass-plugin together), and not in a module the
  // pass will refuse with an error.
  if (M.getModuleFlag(names::ModuleFlag) ||
      M.getNamedMetadata(names::DepthCheckedMD) ||
      !unsupportedModule(M).empty() || !unsupportedSanitizer(M).empty())
    return PreservedAnalyses::all();
  readAnnotations(M);
  Policy P(M);
  SmallVector<Function *, 32> Work;
  for (Function &F : M)
    if (!F.isDeclaration() &&
        (P.isInstrumented(F) || isSplittableVariadic(F)))
      Work.push_back(&F);
  warnStackDepthChecks(M, Work);
  M.getOrInsertNamedMetadata(names::DepthCheckedMD);
  return PreservedAnalyses::all();
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
  // The stack-depth warnings must not depend on what a sanitizer added
  // (CopyStack.h): their pass is registered now, so that it runs before the
  // sanitizers' passes at OptimizerLast (see below).
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(StackDepthCheckPass());
      });
  // CopyStackPass must come after the sanitizers' passes, which clang also
  // adds at OptimizerLast: after ASan has put the locals it watches into
  // its own frame (which then leaves the copyable stack, Sanitizers.h),
  // rather than before, when the pass's llvm.localescape of every local
  // makes ASan leave them all unwatched; and after ASan and TSan have added
  // their calls, so that the pass sees them. OptimizerLast callbacks run in
  // the order they were registered, and clang registers the sanitizers'
  // after the plugins' (clang/lib/CodeGen/BackendUtil.cpp, addSanitizers):
  // so this one registers its own when the pipeline is being built, from
  // the pipeline-start callback, which every default pipeline (-O0 too)
  // runs before it runs the OptimizerLast ones.
  auto Registered = std::make_shared<bool>(false);
  PB.registerPipelineStartEPCallback(
      [&PB, Registered](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(ThreadIdentityPass());
        if (*Registered)
          return;
        *Registered = true;
        PB.registerOptimizerLastEPCallback(
            [](ModulePassManager &MPM, OptimizationLevel) {
              MPM.addPass(CopyStackPass());
            });
      });
}

} // namespace copystack
