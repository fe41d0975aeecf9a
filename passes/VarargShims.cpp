//===- VarargShims.cpp - variadic functions on copyable stacks -----------===//
#include "VarargShims.h"
#include "ArgLayout.h"
#include "Names.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace copystack {

namespace {

// What the split cannot express: forwarding the variadic arguments
// themselves (musttail), or a function copystack leaves alone anyway.
bool splittable(Function &F) {
  if (F.isDeclaration() || !F.isVarArg() || !isModelledCallingConv(F) ||
      F.hasFnAttribute(Attribute::Naked) ||
      F.hasFnAttribute(names::NoSplitAttr) || F.hasPrefixData())
    return false;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (CI->isMustTailCall())
          return false;
  return true;
}

void split(Function &F) {
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  PointerType *Ptr = PointerType::get(C, 0);

  // The body: the fixed parameters and a pointer to the shim's va_list.
  SmallVector<Type *, 8> Params(F.getFunctionType()->params());
  Params.push_back(Ptr);
  auto *BodyTy = FunctionType::get(F.getReturnType(), Params, false);
  Function *Body = Function::Create(BodyTy, GlobalValue::InternalLinkage,
                                    F.getName() + ".copystack.va", M);
  Body->copyAttributesFrom(&F);
  Body->setLinkage(GlobalValue::InternalLinkage);
  Body->setVisibility(GlobalValue::DefaultVisibility);
  Body->setComdat(nullptr);
  Body->setSubprogram(F.getSubprogram());
  F.setSubprogram(nullptr);
  Body->splice(Body->end(), &F);
  for (unsigned I = 0, E = F.arg_size(); I != E; ++I) {
    Argument *Old = F.getArg(I), *New = Body->getArg(I);
    New->takeName(Old);
    Old->replaceAllUsesWith(New);
  }
  Argument *VaArg = Body->getArg(F.arg_size());
  VaArg->setName("va");

  // va_start restarts the variable arguments: copy the shim's va_list.
  SmallVector<IntrinsicInst *, 2> Starts;
  for (BasicBlock &BB : *Body)
    for (Instruction &I : BB)
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->getIntrinsicID() == Intrinsic::vastart)
          Starts.push_back(II);
  for (IntrinsicInst *S : Starts) {
    IRBuilder<> B(S);
    B.CreateIntrinsic(Intrinsic::vacopy, {Ptr}, {S->getArgOperand(0), VaArg});
    S->eraseFromParent();
  }

  // The shim.
  F.addFnAttr(names::VarargShimAttr);
  F.removeFnAttr(Attribute::NoInline);
  F.addFnAttr(Attribute::NoInline);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", &F);
  IRBuilder<> B(Entry);
  // struct __va_list_tag { i32 gp_offset, i32 fp_offset,
  //                        ptr overflow_arg_area, ptr reg_save_area }
  auto *VaListTy = StructType::get(
      C, {B.getInt32Ty(), B.getInt32Ty(), Ptr, Ptr});
  AllocaInst *AP = B.CreateAlloca(VaListTy, nullptr, "ap");
  AP->setAlignment(Align(16));
  AP->setMetadata(names::ShimVaListMD, MDNode::get(C, {}));
  B.CreateIntrinsic(Intrinsic::vastart, {Ptr}, {AP});
  SmallVector<Value *, 8> Args;
  for (Argument &A : F.args())
    Args.push_back(&A);
  Args.push_back(AP);
  CallInst *Call = B.CreateCall(Body, Args);
  B.CreateIntrinsic(Intrinsic::vaend, {Ptr}, {AP});
  if (F.getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Call);
  // Parameter attributes (sret, byval, zeroext...) hold for the body's
  // copies of the fixed parameters, and the call passes them along.
  AttributeList Attrs = Call->getAttributes();
  for (unsigned I = 0, E = F.arg_size(); I != E; ++I)
    Attrs = Attrs.addParamAttributes(
        C, I, AttrBuilder(C, F.getAttributes().getParamAttrs(I)));
  Call->setAttributes(Attrs);
}

} // namespace

bool isSplittableVariadic(Function &F) { return splittable(F); }

unsigned splitVariadicFunctions(Module &M) {
  SmallVector<Function *, 8> Work;
  for (Function &F : M)
    if (splittable(F))
      Work.push_back(&F);
  for (Function *F : Work)
    split(*F);
  return Work.size();
}

} // namespace copystack
