//===- ThreadIdentity.cpp - recompute thread identity at each use ---------===//
#include "ThreadIdentity.h"
#include "Names.h"
#include "Sanitizers.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace copystack {

bool isThreadIdentityLibcall(StringRef Name) {
  return Name == "__errno_location" || Name == "__h_errno_location" ||
         Name == "pthread_self" || Name == "__ctype_b_loc" ||
         Name == "__ctype_tolower_loc" || Name == "__ctype_toupper_loc";
}

namespace {

constexpr StringLiteral TLSAddress = "__copystack.tls.address";

// ptr @__copystack.tls.address(ptr): a declaration that only reads memory,
// standing for llvm.threadlocal.address until the late half.
FunctionCallee tlsAddressFunction(Module &M) {
  auto *Ptr = PointerType::getUnqual(M.getContext());
  FunctionCallee FC = M.getOrInsertFunction(
      TLSAddress, FunctionType::get(Ptr, {Ptr}, false));
  auto *F = cast<Function>(FC.getCallee());
  F->setOnlyReadsMemory();
  F->setDoesNotThrow();
  F->setWillReturn();
  F->setDoesNotFreeMemory();
  return FC;
}

bool isTLSAddressCall(const CallInst *CI) {
  if (auto *II = dyn_cast<IntrinsicInst>(CI))
    return II->getIntrinsicID() == Intrinsic::threadlocal_address &&
           isa<GlobalVariable>(II->getArgOperand(0)->stripPointerCasts());
  const Function *G = CI->getCalledFunction();
  return G && G->getName() == TLSAddress;
}

// Does the code generator reach g without calling __tls_get_addr?
bool staticTLS(const GlobalVariable &G) {
  switch (G.getThreadLocalMode()) {
  case GlobalValue::InitialExecTLSModel:
  case GlobalValue::LocalExecTLSModel:
    return true;
  default:
    break;
  }
  const Module &M = *G.getParent();
  // Executables (PIE or not) use the exec models; shared objects use the
  // dynamic ones unless the variable says otherwise.
  return M.getPICLevel() == PICLevel::NotPIC ||
         M.getPIELevel() != PIELevel::Default;
}

// internal ptr @__copystack.tls.<g>(): returns g's address on the calling
// thread. Never inlined, so the code generator cannot merge two calls.
Function *accessorFor(GlobalVariable &G) {
  Module &M = *G.getParent();
  std::string Name = ("__copystack.tls." + G.getName()).str();
  if (Function *F = M.getFunction(Name))
    return F;
  auto *Ty = FunctionType::get(G.getType(), false);
  Function *F = Function::Create(Ty, GlobalValue::InternalLinkage, Name, M);
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(names::GeneratedAttr);
  if (staticTLS(G))
    F->addFnAttr(names::InPlaceAttr);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "", F));
  B.CreateRet(B.CreateThreadLocalAddress(&G));
  return F;
}

} // namespace

PreservedAnalyses ThreadIdentityPass::run(Module &M,
                                          ModuleAnalysisManager &) {
  bool Changed = false;
  for (Function &F : M)
    if (F.isDeclaration() && isThreadIdentityLibcall(F.getName())) {
      // glibc declares them const; to a task that can change threads they
      // are not. Reading memory keeps two calls apart across any call that
      // may write it.
      F.removeFnAttr(Attribute::Memory);
      F.setOnlyReadsMemory();
      for (User *U : F.users())
        if (auto *CB = dyn_cast<CallBase>(U))
          if (CB->getCalledFunction() == &F) {
            CB->removeFnAttr(Attribute::Memory);
            CB->setOnlyReadsMemory();
          }
      Changed = true;
    }
  SmallVector<IntrinsicInst *, 16> TLS;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->getIntrinsicID() == Intrinsic::threadlocal_address &&
            isa<GlobalVariable>(II->getArgOperand(0)->stripPointerCasts()))
          TLS.push_back(II);
  for (IntrinsicInst *II : TLS) {
    IRBuilder<> B(II);
    CallInst *CI = B.CreateCall(tlsAddressFunction(M), {II->getArgOperand(0)},
                                II->getName());
    CI->setOnlyReadsMemory();
    II->replaceAllUsesWith(CI);
    II->eraseFromParent();
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void restoreThreadLocalAddresses(Function &F) {
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (!isa<IntrinsicInst>(CI) && isTLSAddressCall(CI))
        Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    IRBuilder<> B(CI);
    Value *V = B.CreateThreadLocalAddress(CI->getArgOperand(0));
    V->takeName(CI);
    CI->replaceAllUsesWith(V);
    CI->eraseFromParent();
  }
}

unsigned lowerThreadLocalAddresses(Function &F) {
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (isTLSAddressCall(CI))
        Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    Function *Accessor = accessorFor(
        *cast<GlobalVariable>(CI->getArgOperand(0)->stripPointerCasts()));
    IRBuilder<> B(CI);
    CallInst *Call = B.CreateCall(Accessor);
    Call->setAttributes(Accessor->getAttributes());
    Call->takeName(CI);
    CI->replaceAllUsesWith(Call);
    CI->eraseFromParent();
  }
  return Calls.size();
}

// Is P the calling thread's own memory, by the way its address was
// computed in this function?
static bool threadOwnAddress(const Value *P) {
  const Value *Base = getUnderlyingObject(P);
  if (auto *G = dyn_cast<GlobalVariable>(Base))
    return G->isThreadLocal();
  auto *CI = dyn_cast<CallInst>(Base);
  if (!CI)
    return false;
  if (isTLSAddressCall(CI))
    return true;
  const Function *G = CI->getCalledFunction();
  return G && (isThreadIdentityLibcall(G->getName()) ||
               (G->hasFnAttribute(names::GeneratedAttr) &&
                G->getName().starts_with("__copystack.tls.")));
}

unsigned dropThreadOwnAccessChecks(Function &F) {
  SmallVector<CallInst *, 8> Drop;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (isTsanAccessCheck(*CI) && CI->arg_size() >= 1 &&
          threadOwnAddress(CI->getArgOperand(0)))
        Drop.push_back(CI);
  for (CallInst *CI : Drop)
    CI->eraseFromParent();
  return Drop.size();
}

} // namespace copystack
