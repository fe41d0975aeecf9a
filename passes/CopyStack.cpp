//===- CopyStack.cpp - the copystack instrumentation pass ----------------===//
#include "CopyStack.h"
#include "EscapeAnalysis.h"
#include "ForeignCalls.h"
#include "FrameMaps.h"
#include "PinnedAllocas.h"
#include "Policy.h"
#include "SafepointSpills.h"
#include "StackDepthChecks.h"
#include "ThreadIdentity.h"
#include "VaListSlots.h"
#include "VarargShims.h"

#include "copystack/abi.h"

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
#include "llvm/Transforms/Utils/ModuleUtils.h"

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

// Exceptions on copyable stacks (docs/design.md, "Exceptions"):
//  - every landing pad first re-establishes the stack limit (foreign code
//    that threw unwound into it with the limit still 0);
//  - libgcc's phase 2 recognizes the handler frame by the CFA phase 1
//    recorded in _Unwind_Exception.private_2. A cleanup that grows the
//    stack before it resumes makes that a stale address: each landing pad
//    keeps it in a slot the frame map describes as a pointer, and puts the
//    (relocated) value back before resuming;
//  - resume becomes a call to _Unwind_Resume that ForeignCalls then sends
//    to the thread's stack: the unwinder needs far more than the guard.
void prepareExceptions(Function &F) {
  SmallVector<LandingPadInst *, 4> Pads;
  SmallVector<ResumeInst *, 4> Resumes;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (auto *LP = dyn_cast<LandingPadInst>(&I))
        Pads.push_back(LP);
      else if (auto *R = dyn_cast<ResumeInst>(&I))
        Resumes.push_back(R);
    }
  if (Pads.empty())
    return;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  FunctionCallee Hook = M.getOrInsertFunction(
      names::LandingPad, FunctionType::get(Type::getVoidTy(C), false));
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *ExcSlot = EB.CreateAlloca(Ptr, nullptr, "eh.exception");
  AllocaInst *CfaSlot = EB.CreateAlloca(Ptr, nullptr, "eh.handler_cfa");
  // _Unwind_Exception: { u64 class, ptr cleanup, u64 private_1,
  // u64 private_2 }.
  constexpr uint64_t Private2 = 24;
  for (LandingPadInst *LP : Pads) {
    IRBuilder<> B(LP->getNextNode());
    B.CreateCall(Hook)->setDoesNotThrow();
    Value *Exc = B.CreateExtractValue(LP, 0);
    B.CreateStore(Exc, ExcSlot);
    B.CreateStore(B.CreateLoad(Ptr, B.CreateConstGEP1_64(B.getInt8Ty(), Exc,
                                                         Private2)),
                  CfaSlot);
  }
  FunctionCallee Resume = M.getOrInsertFunction(
      "_Unwind_Resume", FunctionType::get(Type::getVoidTy(C), {Ptr}, false));
  for (ResumeInst *R : Resumes) {
    IRBuilder<> B(R);
    Value *Exc = B.CreateExtractValue(R->getValue(), 0);
    Value *Same = B.CreateICmpEQ(Exc, B.CreateLoad(Ptr, ExcSlot));
    Value *Field = B.CreateConstGEP1_64(B.getInt8Ty(), Exc, Private2);
    Value *Saved = B.CreateLoad(Ptr, CfaSlot);
    B.CreateStore(B.CreateSelect(Same, Saved, B.CreateLoad(Ptr, Field)),
                  Field);
    CallInst *Call = B.CreateCall(Resume, {Exc});
    Call->setDoesNotReturn();
    B.CreateUnreachable();
    R->eraseFromParent();
  }
}

// setjmp on a copyable stack (docs/design.md, "setjmp"): a slot the frame
// map describes as COPYSTACK_OBJ_JMPBUF_REF holds the jmp_buf this frame
// last passed to setjmp, so the runtime relocates the %rsp, %rbp and
// registers saved in it; and after every return of setjmp the task's limit
// is put back (a longjmp from foreign code arrives with it still 0).
void prepareSetjmp(Function &F) {
  SmallVector<CallBase *, 2> Calls;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB->hasFnAttr(Attribute::ReturnsTwice))
          Calls.push_back(CB);
  if (Calls.empty())
    return;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *Slot = EB.CreateAlloca(Ptr, nullptr, "cs.jmpbuf");
  Slot->setMetadata(names::JmpBufMD, MDNode::get(C, {}));
  EB.SetInsertPoint(&Entry, Entry.getFirstNonPHIOrDbgOrAlloca());
  EB.CreateStore(ConstantPointerNull::get(PointerType::get(C, 0)), Slot);
  FunctionCallee Hook = M.getOrInsertFunction(
      names::LandingPad, FunctionType::get(Type::getVoidTy(C), false));
  for (CallBase *CB : Calls) {
    IRBuilder<> B(CB);
    B.CreateStore(CB->getArgOperand(0), Slot);
    Instruction *After = CB->getNextNode();
    if (auto *II = dyn_cast<InvokeInst>(CB)) {
      BasicBlock *Normal = II->getNormalDest();
      if (!Normal->getSinglePredecessor())
        Normal = SplitEdge(II->getParent(), Normal);
      After = &*Normal->getFirstInsertionPt();
    }
    IRBuilder<>(After).CreateCall(Hook)->setDoesNotThrow();
  }
}

void setAttributes(Function &F) {
  // A variadic shim has no prologue check (LLVM refuses one): its frame
  // fits the guard band's budget, and the body it calls checks at once.
  if (!F.hasFnAttribute(names::VarargShimAttr))
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

// Instrumented code linked without the runtime fails on __copystack_*
// symbols whose names do not say what is missing. Refer to one more, which
// only the runtime defines (abi.h, COPYSTACK_RUNTIME_SYMBOL), so that the
// linker's error names the cure. One word of relocated data per object;
// nothing runs.
void referenceRuntime(Module &M) {
  LLVMContext &C = M.getContext();
  Constant *Runtime =
      M.getOrInsertGlobal(COPYSTACK_RUNTIME_SYMBOL, Type::getInt8Ty(C));
  auto *Ref = new GlobalVariable(M, PointerType::get(C, 0), /*isConstant=*/true,
                                 GlobalValue::InternalLinkage, Runtime,
                                 "__copystack_runtime_reference");
  appendToCompilerUsed(M, {Ref});
}

// __attribute__((annotate("copystack_nosplit"))) keeps a function off
// copyable stacks: clang records it in llvm.global.annotations.
void readAnnotations(Module &M) {
  GlobalVariable *GV = M.getGlobalVariable("llvm.global.annotations");
  if (!GV || !GV->hasInitializer())
    return;
  auto *Array = dyn_cast<ConstantArray>(GV->getInitializer());
  if (!Array)
    return;
  for (Value *Op : Array->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(Op);
    if (!Entry || Entry->getNumOperands() < 2)
      continue;
    auto *F = dyn_cast<Function>(Entry->getOperand(0)->stripPointerCasts());
    auto *Str =
        dyn_cast<GlobalVariable>(Entry->getOperand(1)->stripPointerCasts());
    if (!F || !Str || !Str->hasInitializer())
      continue;
    auto *Data = dyn_cast<ConstantDataArray>(Str->getInitializer());
    if (Data && Data->isCString() && Data->getAsCString() == "copystack_nosplit")
      F->addFnAttr(names::NoSplitAttr);
  }
}

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
  for (Function *F : Work) {
    ForeignCallStats FS;
    SpillStats SS;
    FrameMapStats MS;
    PinStats PS;
    OptimizationRemarkEmitter PinORE(F);
    MapVector<Value *, std::string> Escaping;
    SmallVector<PinnedObject, 8> Pinned;
    if (!F->hasFnAttribute(names::VarargShimAttr))
      Escaping = findEscapingLocals(*F);
    pinAllocas(*F, Escaping, PS,
               [&](Value *AI, StringRef Why) {
                 PinORE.emit([&] {
                   auto R = isa<Instruction>(AI)
                                ? OptimizationRemark("copystack",
                                                     "MovedOffStack",
                                                     cast<Instruction>(AI))
                                : OptimizationRemark("copystack",
                                                     "MovedOffStack",
                                                     F->getSubprogram(),
                                                     &F->getEntryBlock());
                   return R
                          << "'" << F->getName() << "': " << localName(AI)
                          << " moved off the copyable stack: " << Why;
                 });
               },
               Pinned);
    checkStep(*F, "pinned allocas");
    addVaListSlots(*F, Pinned);
    memIntrinsicsToCalls(*F);
    prepareExceptions(*F);
    prepareSetjmp(*F);
    lowerThreadLocalAddresses(*F);
    rewriteForeignCalls(*F, P, Thunks, FS);
    checkStep(*F, "foreign calls");
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
  // Functions on the system stack never change threads mid-call: their
  // thread_local addresses go back to the intrinsic.
  SmallPtrSet<Function *, 32> InWork(Work.begin(), Work.end());
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
