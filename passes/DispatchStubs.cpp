//===- DispatchStubs.cpp - let the linker decide what a call reaches -----===//
#include "DispatchStubs.h"
#include "ArgLayout.h"
#include "Names.h"

#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace copystack {

namespace {

// Arguments in registers other code owns, or that the call itself lays out:
// a stub in between would not pass them on unchanged.
bool specialArguments(const CallBase &CB, const Function &G) {
  for (unsigned I = 0, E = CB.arg_size(); I != E; ++I)
    if (unmodelledParam(CB.getAttributes(), I) ||
        unmodelledParam(G.getAttributes(), I))
      return true;
  return false;
}

// A call the stub can stand in for: a plain call of a declared,
// non-variadic C function through the function's own type. In a shared
// library's code a default-visibility callee may be interposed from
// another object at load time; the stub would still reach it, but keep the
// test at the call site there rather than add a frame.
bool redirectable(const CallBase &CB, const Function &G, const Module &M) {
  if (!isa<CallInst>(CB) && !isa<InvokeInst>(CB))
    return false;
  if (CB.getCalledOperand() != &G || !G.isDeclaration() || G.isIntrinsic() ||
      G.isVarArg() || CB.getFunctionType() != G.getFunctionType())
    return false;
  if (G.getCallingConv() != CallingConv::C ||
      CB.getCallingConv() != CallingConv::C)
    return false;
  if (auto *CI = dyn_cast<CallInst>(&CB); CI && CI->isMustTailCall())
    return false;
  if (CB.hasOperandBundles() || specialArguments(CB, G) ||
      G.hasFnAttribute(Attribute::ReturnsTwice))
    return false;
  if (G.getName().empty() || G.getName().front() == '\1')
    return false;
  // The runtime is never instrumented, and its protocols count on that: a
  // task holds a channel's lock from __copystack_chan_recv_begin to
  // __copystack_park, and must not move meanwhile, as a stub's prologue
  // may make it. Its API keeps the test at the call site, and its caller's
  // name in "created by".
  if (G.getName().starts_with("__copystack") ||
      G.getName().starts_with("copystack_"))
    return false;
  bool SharedLibraryCode =
      M.getPICLevel() != PICLevel::NotPIC && M.getPIELevel() == PIELevel::Default;
  return !SharedLibraryCode || G.isDSOLocal();
}

std::string stubName(StringRef Callee) {
  return (Twine(names::DispatchPrefix) + Callee).str();
}

} // namespace

Function *DispatchStubs::stubFor(Function &G, const Function &Caller) {
  std::string Name = stubName(G.getName());
  if (Function *S = M.getFunction(Name))
    if (S->hasFnAttribute(names::DispatchStubAttr))
      return S;
  if (M.getNamedValue(Name))
    return nullptr; // the name is taken by something else: leave the call
  LLVMContext &C = M.getContext();
  Function *S = Function::Create(G.getFunctionType(),
                                 GlobalValue::WeakAnyLinkage, Name, M);
  S->setVisibility(GlobalValue::HiddenVisibility);
  S->setDSOLocal(true);
  S->setComdat(M.getOrInsertComdat(Name));
  S->setCallingConv(G.getCallingConv());
  // What the callee promises about its arguments and result holds for the
  // stub, which only passes them on; what it promises about memory does not
  // (the stub's frame, and the foreign call's).
  S->setAttributes(G.getAttributes());
  S->removeFnAttr(Attribute::Memory);
  S->removeFnAttr(Attribute::AlwaysInline);
  S->addFnAttr(Attribute::NoInline);
  for (StringRef A : {"target-cpu", "target-features", "tune-cpu"})
    if (Caller.hasFnAttribute(A))
      S->addFnAttr(Caller.getFnAttribute(A));
  S->addFnAttr(names::DispatchStubAttr);

  IRBuilder<> B(BasicBlock::Create(C, "entry", S));
  SmallVector<Value *, 8> Args;
  for (Argument &A : S->args())
    Args.push_back(&A);
  CallInst *Call = B.CreateCall(&G, Args);
  Call->setCallingConv(G.getCallingConv());
  Call->setAttributes(G.getAttributes());
  // A tail call, on both paths the prefix test makes of it: a jump to an
  // instrumented callee, and to the foreign-call trampoline otherwise
  // (ForeignCalls.cpp keeps the marker), so the stub keeps no frame. Not
  // with a byval argument, which the stub's caller laid out for it
  // (inalloca and preallocated ones never reach a stub: redirectable).
  if (!Call->getAttributes().hasAttrSomewhere(Attribute::ByVal))
    Call->setTailCall();
  if (S->getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Call);
  Created.push_back(S);
  return S;
}

unsigned DispatchStubs::redirect(Function &F, const Policy &P) {
  if (F.hasFnAttribute(names::DispatchStubAttr))
    return 0;
  SmallVector<std::pair<CallBase *, Function *>, 16> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (auto *G = dyn_cast<Function>(CB->getCalledOperand()))
          if (P.classify(*CB) == CallKind::Dispatch &&
              redirectable(*CB, *G, M))
            Work.push_back({CB, G});
  unsigned N = 0;
  for (auto [CB, G] : Work)
    if (Function *S = stubFor(*G, F)) {
      CB->setCalledOperand(S);
      ++N;
    }
  return N;
}

void defineDispatchAliases(Module &M, ArrayRef<Function *> Instrumented) {
  for (Function *F : Instrumented) {
    if (!F->hasExternalLinkage() || !F->isDSOLocal() || F->isVarArg() ||
        F->getCallingConv() != CallingConv::C || F->getName().empty() ||
        F->getName().front() == '\1' ||
        F->hasFnAttribute(names::DispatchStubAttr))
      continue;
    std::string Name = stubName(F->getName());
    if (M.getNamedValue(Name))
      continue;
    auto *A = GlobalAlias::create(F->getValueType(), F->getAddressSpace(),
                                  GlobalValue::ExternalLinkage, Name, F, &M);
    A->setVisibility(GlobalValue::HiddenVisibility);
    A->setDSOLocal(true);
  }
}

} // namespace copystack
