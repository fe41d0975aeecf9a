//===- ForeignCalls.cpp - run foreign code on the system stack -----------===//
#include "ForeignCalls.h"
#include "target/Target.h"

#include "ArgLayout.h"
#include "Names.h"
#include "copystack/abi.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace copystack {

namespace {

/// The layout of the frame a foreign call passes through memory:
/// { [ptr callee], arg0, arg1, ..., [result] }.
struct FrameShape {
  StructType *Ty = nullptr;
  bool HasCallee = false;
  unsigned FirstArg = 0;
  int Result = -1;
};

FrameShape frameShape(CallBase &CB, bool Indirect) {
  LLVMContext &Ctx = CB.getContext();
  SmallVector<Type *, 8> Fields;
  FrameShape S;
  if (Indirect) {
    Fields.push_back(PointerType::get(Ctx, 0));
    S.HasCallee = true;
  }
  S.FirstArg = Fields.size();
  for (Value *A : CB.args())
    Fields.push_back(A->getType());
  if (!CB.getType()->isVoidTy()) {
    S.Result = Fields.size();
    Fields.push_back(CB.getType());
  }
  S.Ty = StructType::get(Ctx, Fields);
  return S;
}

/// Whether a result of type T comes back in %rax, %rdx, %xmm0 and %xmm1
/// only: the registers the trampoline keeps on every path (switch.S).
bool resultInRegisters(Type *T, unsigned &GPRs, unsigned &XMMs) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    for (Type *E : ST->elements())
      if (!resultInRegisters(E, GPRs, XMMs))
        return false;
    return true;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    for (uint64_t I = 0, E = AT->getNumElements(); I != E; ++I)
      if (!resultInRegisters(AT->getElementType(), GPRs, XMMs))
        return false;
    return true;
  }
  if (T->isPointerTy() || (T->isIntegerTy() && T->getIntegerBitWidth() <= 64))
    return ++GPRs <= 2;
  if (T->isIntegerTy(128))
    return (GPRs += 2) <= 2;
  if (T->isHalfTy() || T->isBFloatTy() || T->isFloatTy() || T->isDoubleTy())
    return ++XMMs <= 2;
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    uint64_t Bits = VT->getPrimitiveSizeInBits().getFixedValue();
    return (Bits == 64 || Bits == 128) && ++XMMs <= 2;
  }
  return false; // x86_fp80 (%st0), fp128, wider vectors: through memory
}

} // namespace

bool passesInRegisters(const CallBase &CB) {
  if (CB.getCallingConv() != CallingConv::C || CB.hasOperandBundles() ||
      CB.isMustTailCall())
    return false;
  ArgLayout L = computeCallLayout(CB);
  if (L.Conservative || L.StackBytes != 0)
    return false;
  // The target goes first: an sret must stay on the first two parameters.
  for (unsigned I = 1, E = CB.arg_size(); I < E; ++I)
    if (CB.paramHasAttr(I, Attribute::StructRet))
      return false;
  if (CB.getType()->isVoidTy())
    return true;
  unsigned GPRs = 0, XMMs = 0;
  return resultInRegisters(CB.getType(), GPRs, XMMs);
}

CallBase *createForeignCall(IRBuilderBase &B, FunctionType *FT, Value *Target,
                            ArrayRef<Value *> Args, AttributeList Attrs,
                            BasicBlock *Normal, BasicBlock *Unwind) {
  LLVMContext &Ctx = B.getContext();
  Module &M = *B.GetInsertBlock()->getModule();
  SmallVector<Type *, 8> Params{PointerType::get(Ctx, 0)};
  Params.append(FT->param_begin(), FT->param_end());
  auto *Ty = FunctionType::get(FT->getReturnType(), Params, FT->isVarArg());
  SmallVector<Value *, 8> Ops{Target};
  Ops.append(Args.begin(), Args.end());
  SmallVector<AttributeSet, 8> ParamAttrs{
      AttributeSet::get(Ctx, {Attribute::get(Ctx, Attribute::Nest)})};
  for (unsigned I = 0, E = Args.size(); I != E; ++I)
    ParamAttrs.push_back(Attrs.getParamAttrs(I));
  AttributeList CallAttrs =
      AttributeList::get(Ctx, AttributeSet(), Attrs.getRetAttrs(), ParamAttrs);
  // The declaration's own type is a placeholder: every call states its own
  // (the callee's signature, the target first).
  FunctionCallee Trampoline = M.getOrInsertFunction(
      Target::of(M).foreignCallSymbol(),
      FunctionType::get(Type::getVoidTy(Ctx), false));
  CallBase *Call;
  if (Normal)
    Call = B.CreateInvoke(Ty, Trampoline.getCallee(), Normal, Unwind, Ops);
  else
    Call = B.CreateCall(Ty, Trampoline.getCallee(), Ops);
  Call->setAttributes(CallAttrs);
  return Call;
}

namespace {

/// The thunk path: thunk(frame), the thunk in %r10 and the frame in %rdi.
CallBase *callThunk(IRBuilderBase &B, Function *Thunk, Value *Frame,
                    BasicBlock *Normal = nullptr,
                    BasicBlock *Unwind = nullptr) {
  return createForeignCall(B, Thunk->getFunctionType(), Thunk, {Frame},
                           AttributeList(), Normal, Unwind);
}

} // namespace

Function *ThunkCache::get(CallBase &CB, Function *Callee,
                          StructType *FrameTy) {
  std::optional<OperandBundleUse> KCFI =
      CB.getOperandBundle(LLVMContext::OB_kcfi);
  Key K{Callee, CB.getFunctionType(), FrameTy,
        CB.getAttributes().getRawPointer(), CB.getCallingConv(),
        KCFI ? KCFI->Inputs[0].get() : nullptr};
  if (Function *T = Thunks.lookup(K))
    return T;

  LLVMContext &Ctx = M.getContext();
  PointerType *Ptr = PointerType::get(Ctx, 0);
  auto *FT = FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false);
  std::string Name = "__copystack.thunk." + std::to_string(Next++);
  if (Callee)
    Name += "." + Callee->getName().str();
  Function *T = Function::Create(FT, GlobalValue::InternalLinkage, Name, M);
  T->addFnAttr(names::GeneratedAttr);
  T->addFnAttr(Attribute::NoInline);
  T->addFnAttr("frame-pointer", "all");
  T->setUWTableKind(UWTableKind::Async);
  if (CB.doesNotThrow())
    T->addFnAttr(Attribute::NoUnwind);

  BasicBlock *BB = BasicBlock::Create(Ctx, "entry", T);
  IRBuilder<> B(BB);
  Value *Frame = T->getArg(0);
  unsigned Field = 0;
  Value *Target = Callee;
  if (!Callee)
    Target = B.CreateLoad(Ptr, B.CreateStructGEP(FrameTy, Frame, Field++));
  SmallVector<Value *, 8> Args;
  for (unsigned I = 0, E = CB.arg_size(); I != E; ++I, ++Field)
    Args.push_back(B.CreateLoad(FrameTy->getElementType(Field),
                                B.CreateStructGEP(FrameTy, Frame, Field)));
  SmallVector<OperandBundleDef, 1> Bundles;
  if (KCFI && !Callee)
    Bundles.emplace_back("kcfi", KCFI->Inputs[0].get());
  CallInst *Call = B.CreateCall(CB.getFunctionType(), Target, Args, Bundles);
  Call->setAttributes(CB.getAttributes());
  Call->setCallingConv(CB.getCallingConv());
  if (!CB.getType()->isVoidTy())
    B.CreateStore(Call, B.CreateStructGEP(FrameTy, Frame, Field));
  B.CreateRetVoid();
  Thunks[K] = T;
  return T;
}

namespace {

class Rewriter {
public:
  Rewriter(Function &F, ThunkCache &TC) : F(F), M(*F.getParent()), TC(TC) {}

  /// Replaces CB by a foreign call through the system stack.
  void makeForeign(CallBase &CB, Function *Callee) {
    if (passesInRegisters(CB)) {
      IRBuilder<> B(&CB);
      B.SetCurrentDebugLocation(CB.getDebugLoc());
      auto *II = dyn_cast<InvokeInst>(&CB);
      CallBase *NC =
          registerCall(B, CB, Callee, II ? II->getNormalDest() : nullptr,
                       II ? II->getUnwindDest() : nullptr);
      NC->takeName(&CB);
      CB.replaceAllUsesWith(NC);
      CB.eraseFromParent();
      return;
    }
    FrameShape S = frameShape(CB, !Callee);
    Function *Thunk = TC.get(CB, Callee, S.Ty);
    AllocaInst *Frame = frameFor(S.Ty);
    if (auto *CI = dyn_cast<CallInst>(&CB)) {
      IRBuilder<> B(CI);
      B.SetCurrentDebugLocation(CI->getDebugLoc());
      Value *R = emitCall(B, CB, S, Frame, Thunk, /*Lifetime=*/true);
      if (R)
        CI->replaceAllUsesWith(R);
      CI->eraseFromParent();
      return;
    }
    auto *II = cast<InvokeInst>(&CB);
    IRBuilder<> B(II);
    B.SetCurrentDebugLocation(II->getDebugLoc());
    storeArgs(B, CB, S, Frame);
    BasicBlock *Cont = BasicBlock::Create(F.getContext(), "foreign.cont", &F,
                                          II->getNormalDest());
    callThunk(B, Thunk, Frame, Cont, II->getUnwindDest())
        ->setDebugLoc(II->getDebugLoc());
    IRBuilder<> CB2(Cont);
    CB2.SetCurrentDebugLocation(II->getDebugLoc());
    Value *R = loadResult(CB2, CB, S, Frame);
    CB2.CreateBr(II->getNormalDest());
    retargetPhis(II->getNormalDest(), II->getParent(), Cont, II, R);
    if (R)
      II->replaceAllUsesWith(R);
    II->eraseFromParent();
  }

  /// Tests the callee's prefix at run time.
  void dispatch(CallBase &CB, Function *Callee) {
    bool InRegisters = passesInRegisters(CB);
    FrameShape S;
    Function *Thunk = nullptr;
    AllocaInst *Frame = nullptr;
    if (!InRegisters) {
      S = frameShape(CB, !Callee);
      Thunk = TC.get(CB, Callee, S.Ty);
      Frame = frameFor(S.Ty);
    }
    Value *Target = CB.getCalledOperand();
    IRBuilder<> B(&CB);
    B.SetCurrentDebugLocation(CB.getDebugLoc());
    Value *Cond = isInstrumented(B, Target);
    // Most calls through a pointer in instrumented code reach instrumented
    // code (methods, callbacks of the program's own): the direct call is
    // the fall-through path, and the foreign one is laid out of line.
    MDNode *Likely = MDBuilder(CB.getContext()).createLikelyBranchWeights();

    if (auto *CI = dyn_cast<CallInst>(&CB)) {
      Instruction *ThenTerm = nullptr, *ElseTerm = nullptr;
      SplitBlockAndInsertIfThenElse(Cond, CI->getIterator(), &ThenTerm,
                                    &ElseTerm, Likely);
      BasicBlock *Tail = CI->getParent();
      CI->moveBefore(ThenTerm);
      IRBuilder<> EB(ElseTerm);
      EB.SetCurrentDebugLocation(CI->getDebugLoc());
      Value *R = nullptr;
      if (InRegisters) {
        CallBase *NC = registerCall(EB, CB, Callee);
        if (!CB.getType()->isVoidTy())
          R = NC;
      } else {
        R = emitCall(EB, CB, S, Frame, Thunk, /*Lifetime=*/true);
      }
      if (R) {
        PHINode *Phi = PHINode::Create(CI->getType(), 2, "", Tail->begin());
        CI->replaceAllUsesWith(Phi);
        Phi->addIncoming(CI, ThenTerm->getParent());
        Phi->addIncoming(R, ElseTerm->getParent());
      }
      return;
    }

    auto *II = cast<InvokeInst>(&CB);
    BasicBlock *From = II->getParent();
    BasicBlock *Normal = II->getNormalDest();
    BasicBlock *Unwind = II->getUnwindDest();
    LLVMContext &Ctx = F.getContext();
    BasicBlock *Direct = BasicBlock::Create(Ctx, "dispatch.direct", &F, Normal);
    BasicBlock *Foreign =
        BasicBlock::Create(Ctx, "dispatch.foreign", &F, Normal);
    BasicBlock *FCont = BasicBlock::Create(Ctx, "foreign.cont", &F, Normal);
    BasicBlock *Join = BasicBlock::Create(Ctx, "dispatch.join", &F, Normal);

    II->removeFromParent();
    II->insertInto(Direct, Direct->end());
    II->setNormalDest(Join);
    IRBuilder<> FB(From);
    FB.SetCurrentDebugLocation(II->getDebugLoc());
    FB.CreateCondBr(Cond, Direct, Foreign, Likely);

    IRBuilder<> XB(Foreign);
    XB.SetCurrentDebugLocation(II->getDebugLoc());
    Value *R = nullptr;
    if (InRegisters) {
      CallBase *NC = registerCall(XB, CB, Callee, FCont, Unwind);
      if (!CB.getType()->isVoidTy())
        R = NC;
    } else {
      storeArgs(XB, CB, S, Frame);
      callThunk(XB, Thunk, Frame, FCont, Unwind)
          ->setDebugLoc(II->getDebugLoc());
    }
    IRBuilder<> CB2(FCont);
    CB2.SetCurrentDebugLocation(II->getDebugLoc());
    if (!InRegisters)
      R = loadResult(CB2, CB, S, Frame);
    CB2.CreateBr(Join);

    IRBuilder<> JB(Join);
    JB.SetCurrentDebugLocation(II->getDebugLoc());
    PHINode *Phi = nullptr;
    if (R)
      Phi = JB.CreatePHI(II->getType(), 2);
    JB.CreateBr(Normal);
    if (Phi) {
      II->replaceAllUsesWith(Phi);
      Phi->addIncoming(II, Direct);
      Phi->addIncoming(R, FCont);
    }
    // Normal's phis came from From through the invoke: now from Join.
    for (PHINode &P : Normal->phis())
      for (unsigned I = 0, E = P.getNumIncomingValues(); I != E; ++I)
        if (P.getIncomingBlock(I) == From)
          P.setIncomingBlock(I, Join);
    // The landing pad is now reached from Direct and Foreign.
    for (PHINode &P : Unwind->phis()) {
      int Idx = P.getBasicBlockIndex(From);
      if (Idx < 0)
        continue;
      Value *V = P.getIncomingValue(Idx);
      P.setIncomingBlock(Idx, Direct);
      P.addIncoming(V, Foreign);
    }
  }

private:
  Function &F;
  Module &M;
  ThunkCache &TC;

  /// CB's call made as it stands through the trampoline (passesInRegisters):
  /// a call, or an invoke to Normal and Unwind.
  CallBase *registerCall(IRBuilder<> &B, CallBase &CB, Function *Callee,
                         BasicBlock *Normal = nullptr,
                         BasicBlock *Unwind = nullptr) {
    Value *Target = Callee ? Callee : CB.getCalledOperand();
    SmallVector<Value *, 8> Args(CB.args());
    CallBase *Call = createForeignCall(B, CB.getFunctionType(), Target, Args,
                                       CB.getAttributes(), Normal, Unwind);
    Call->setDebugLoc(CB.getDebugLoc());
    if (isa<CallInst>(Call) && CB.doesNotThrow())
      Call->setDoesNotThrow();
    if (isa<CallInst>(Call) && CB.doesNotReturn())
      Call->setDoesNotReturn();
    // A tail call stays one: the trampoline is then jumped to, with the
    // caller's caller's return address on the stack, which is how it
    // treats any instrumented call site; the function keeps no frame for
    // a foreign path that returns at once (an indirect tail call of a
    // method that may be foreign).
    if (auto *Old = dyn_cast<CallInst>(&CB))
      if (auto *New = dyn_cast<CallInst>(Call); New && Old->isTailCall())
        New->setTailCall();
    return Call;
  }

  AllocaInst *frameFor(StructType *Ty) {
    BasicBlock &Entry = F.getEntryBlock();
    IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
    return B.CreateAlloca(Ty, nullptr, "foreign.frame");
  }

  Value *isInstrumented(IRBuilder<> &B, Value *Target) {
    Type *I64 = B.getInt64Ty();
    Value *Magic = B.CreateConstGEP1_64(B.getInt8Ty(), Target,
                                        -COPYSTACK_MAGIC_OFFSET);
    LoadInst *Word = B.CreateAlignedLoad(I64, Magic, Align(1), "prefix");
    return B.CreateICmpEQ(Word, ConstantInt::get(I64, COPYSTACK_MAGIC),
                          "instrumented");
  }

  void storeArgs(IRBuilder<> &B, CallBase &CB, const FrameShape &S,
                 AllocaInst *Frame) {
    if (S.HasCallee)
      B.CreateStore(CB.getCalledOperand(), B.CreateStructGEP(S.Ty, Frame, 0));
    for (unsigned I = 0, E = CB.arg_size(); I != E; ++I)
      B.CreateStore(CB.getArgOperand(I),
                    B.CreateStructGEP(S.Ty, Frame, S.FirstArg + I));
  }

  Value *loadResult(IRBuilder<> &B, CallBase &CB, const FrameShape &S,
                    AllocaInst *Frame) {
    if (S.Result < 0)
      return nullptr;
    LoadInst *R = B.CreateLoad(S.Ty->getElementType(S.Result),
                               B.CreateStructGEP(S.Ty, Frame, S.Result));
    // Keep what the callee promised about its result: a fresh allocation
    // (malloc) never points into a stack, and needs no slot.
    if (CB.hasRetAttr(Attribute::NoAlias))
      R->setMetadata(names::NoAliasResultMD, MDNode::get(CB.getContext(), {}));
    return R;
  }

  Value *emitCall(IRBuilder<> &B, CallBase &CB, const FrameShape &S,
                  AllocaInst *Frame, Function *Thunk, bool Lifetime) {
    const DataLayout &DL = M.getDataLayout();
    Value *Size = B.getInt64(DL.getTypeAllocSize(S.Ty));
    if (Lifetime)
      B.CreateLifetimeStart(Frame, cast<ConstantInt>(Size));
    storeArgs(B, CB, S, Frame);
    CallBase *Call = callThunk(B, Thunk, Frame);
    if (CB.doesNotThrow())
      Call->setDoesNotThrow();
    if (CB.doesNotReturn())
      Call->setDoesNotReturn();
    Value *R = loadResult(B, CB, S, Frame);
    if (Lifetime)
      B.CreateLifetimeEnd(Frame, cast<ConstantInt>(Size));
    return R;
  }

  /// Phis in Succ that came from Old through invoke II now come from New;
  /// an incoming II itself becomes R.
  static void retargetPhis(BasicBlock *Succ, BasicBlock *Old, BasicBlock *New,
                           Instruction *II, Value *R) {
    for (PHINode &P : Succ->phis())
      for (unsigned I = 0, E = P.getNumIncomingValues(); I != E; ++I)
        if (P.getIncomingBlock(I) == Old) {
          P.setIncomingBlock(I, New);
          if (P.getIncomingValue(I) == II)
            P.setIncomingValue(I, R);
        }
  }
};

} // namespace

bool rewriteForeignCalls(Function &F, const Policy &P, ThunkCache &TC,
                         ForeignCallStats &Stats) {
  SmallVector<std::pair<CallBase *, CallKind>, 16> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        CallKind K = P.classify(*CB);
        if (K == CallKind::Foreign || K == CallKind::Dispatch)
          Work.push_back({CB, K});
      }
  Rewriter R(F, TC);
  for (auto [CB, K] : Work) {
    auto *Callee = dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
    if (Callee && Callee->getFunctionType() != CB->getFunctionType())
      Callee = nullptr; // called through a mismatched type: treat as indirect
    if (K == CallKind::Foreign) {
      R.makeForeign(*CB, Callee);
      ++Stats.Foreign;
    } else {
      R.dispatch(*CB, Callee);
      ++Stats.Dispatched;
    }
  }
  return !Work.empty();
}

} // namespace copystack
