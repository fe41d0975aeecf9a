//===- ArgLayout.cpp - System V x86-64 incoming argument assignment ------===//
#include "ArgLayout.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace copystack {


bool isModelledCallingConv(const Function &F) {
  switch (F.getCallingConv()) {
  case CallingConv::C:
  case CallingConv::Fast:
  case CallingConv::Cold:
  case CallingConv::PreserveMost:
  case CallingConv::PreserveAll:
    return true;
  default:
    return false;
  }
}

namespace {

/// One argument as the assignment sees it, from a function or a call.
struct ArgDesc {
  llvm::Value *V = nullptr;
  Type *Ty = nullptr;
  Type *ByValTy = nullptr;  ///< byval(T): the copy's type
  MaybeAlign Align;         ///< align(N) on a byval argument
  bool Unmodelled = false;  ///< nest, swift*, inalloca, preallocated
  bool StructRet = false;   ///< sret: in x8 on AArch64
};

class Assigner {
public:
  Assigner(const Module &M, ArgLayout &Out)
      : DL(M.getDataLayout()), Out(Out),
        Aapcs64(Triple(M.getTargetTriple()).getArch() == Triple::aarch64),
        NumGPRs(Aapcs64 ? 8 : 6) {}

  void assign(const ArgDesc &A) {
    // AAPCS64 (the AArch64 port, docs/porting.md): the scalars only, in
    // x0-x7 and v0-v7 and then 8-byte (16 for 16-byte vectors) stack
    // slots. Aggregates (homogeneous floating-point ones take v registers
    // all or none), i128 (an even register pair), fp128 and byval are not
    // modelled yet, nor the indirect result in x8 (sret): conservative.
    if (Aapcs64 && (A.ByValTy || A.Unmodelled || A.StructRet ||
                    A.Ty->isAggregateType() || A.Ty->isFP128Ty() ||
                    A.Ty->isIntegerTy(128))) {
      Out.Conservative = true;
      return;
    }
    if (A.ByValTy) {
      assignByVal(A);
      return;
    }
    if (A.Unmodelled) {
      Out.Conservative = true;
      return;
    }
    assignLeaves(A, A.Ty);
  }

private:
  const DataLayout &DL;
  ArgLayout &Out;
  const bool Aapcs64; ///< AArch64's convention; otherwise System V x86-64
  const unsigned NumGPRs;
  static constexpr unsigned NumXMMs = 8; ///< or v0-v7
  unsigned GPRs = 0;
  unsigned XMMs = 0;
  uint64_t Stack = 0;

  uint64_t allocateStack(uint64_t Size, uint64_t Align) {
    uint64_t Offset = alignTo(Stack, Align);
    Stack = Offset + Size;
    // The area is a whole number of 8-byte slots: a 17-byte byval struct
    // takes 24 bytes, and LLVM's %r11 says so.
    Out.StackBytes = alignTo(Stack, 8);
    return Offset;
  }

  void assignByVal(const ArgDesc &A) {
    Type *T = A.ByValTy;
    uint64_t Size = std::max<uint64_t>(DL.getTypeAllocSize(T), 8);
    uint64_t Align = DL.getABITypeAlign(T).value();
    if (A.Align)
      Align = A.Align->value();
    Align = std::max<uint64_t>(Align, 8);
    uint64_t Offset = allocateStack(Size, Align);
    StackArgObject O;
    O.Offset = Offset;
    O.Size = Size;
    O.Layout = layoutOf(DL, T);
    O.Layout.Pointers.resize(wordsFor(Size));
    O.Arg = A.V;
    O.ByVal = true;
    Out.StackObjects.push_back(std::move(O));
  }

  void assignLeaves(const ArgDesc &A, Type *T) {
    if (auto *ST = dyn_cast<StructType>(T)) {
      for (Type *E : ST->elements())
        assignLeaves(A, E);
      return;
    }
    if (auto *AT = dyn_cast<ArrayType>(T)) {
      for (uint64_t I = 0, E = AT->getNumElements(); I != E; ++I)
        assignLeaves(A, AT->getElementType());
      return;
    }
    assignScalar(A, T);
  }

  void assignGPROrStack(const ArgDesc &A, bool IsPointer) {
    if (GPRs < NumGPRs) {
      if (IsPointer)
        Out.GPRPointerMask |= 1u << GPRs;
      ++GPRs;
      return;
    }
    uint64_t Offset = allocateStack(8, 8);
    if (IsPointer) {
      StackArgObject O;
      O.Offset = Offset;
      O.Size = 8;
      O.Layout.Pointers.resize(1);
      O.Layout.Pointers.set(0);
      O.Arg = A.V;
      Out.StackObjects.push_back(std::move(O));
    }
  }

  void assignXMMOrStack(uint64_t StackSize, uint64_t StackAlign) {
    if (XMMs < NumXMMs) {
      ++XMMs;
      return;
    }
    allocateStack(StackSize, StackAlign);
  }

  void assignScalar(const ArgDesc &A, Type *T) {
    if (isStackPointerType(T)) {
      assignGPROrStack(A, /*IsPointer=*/true);
      return;
    }
    if (T->isPointerTy()) { // another address space: never a stack pointer
      assignGPROrStack(A, /*IsPointer=*/false);
      return;
    }
    if (T->isIntegerTy()) {
      unsigned Bits = T->getIntegerBitWidth();
      if (Bits <= 64) {
        assignGPROrStack(A, /*IsPointer=*/false);
        return;
      }
      if (Bits == 128) {
        if (GPRs + 2 <= NumGPRs) {
          GPRs += 2;
          return;
        }
        // LLVM 18 shadows R9 here, LLVM 19 does not: either way nothing in
        // the registers changes, but later stack offsets might. Be safe.
        if (GPRs == NumGPRs - 1)
          Out.Conservative = true;
        allocateStack(16, 16);
        return;
      }
      Out.Conservative = true;
      return;
    }
    if (T->isHalfTy() || T->isBFloatTy() || T->isFloatTy() ||
        T->isDoubleTy()) {
      assignXMMOrStack(8, 8);
      return;
    }
    if (T->isFP128Ty()) {
      assignXMMOrStack(16, 16);
      return;
    }
    if (T->isX86_FP80Ty()) {
      allocateStack(16, 16);
      return;
    }
    if (auto *VT = dyn_cast<FixedVectorType>(T)) {
      if (isStackPointerType(VT->getElementType()))
        Out.VectorPointers = true;
      uint64_t Bits = DL.getTypeSizeInBits(VT).getFixedValue();
      if (Bits == 128 || Bits == 64) {
        if (Aapcs64 && Bits == 64)
          assignXMMOrStack(8, 8);
        else
          assignXMMOrStack(16, 16);
        return;
      }
      Out.Conservative = true;
      return;
    }
    Out.Conservative = true;
  }
};

} // namespace

bool unmodelledParam(const AttributeList &Attrs, unsigned No) {
  for (Attribute::AttrKind K :
       {Attribute::Nest, Attribute::SwiftSelf, Attribute::SwiftError,
        Attribute::SwiftAsync, Attribute::InAlloca, Attribute::Preallocated})
    if (Attrs.hasParamAttr(No, K))
      return true;
  return false;
}

ArgLayout computeArgLayout(const Function &F) {
  ArgLayout Out;
  if (!isModelledCallingConv(F)) {
    Out.Conservative = true;
    return Out;
  }
  Assigner A(*F.getParent(), Out);
  for (Argument &Arg : const_cast<Function &>(F).args()) {
    unsigned No = Arg.getArgNo();
    ArgDesc D;
    D.V = &Arg;
    D.Ty = Arg.getType();
    D.ByValTy = F.getParamByValType(No);
    D.Align = F.getParamAlign(No);
    D.Unmodelled = unmodelledParam(F.getAttributes(), No);
    D.StructRet = F.hasParamAttribute(No, Attribute::StructRet);
    A.assign(D);
  }
  return Out;
}

ArgLayout computeCallLayout(const CallBase &CB) {
  ArgLayout Out;
  if (CB.getCallingConv() != CallingConv::C &&
      CB.getCallingConv() != CallingConv::Fast &&
      CB.getCallingConv() != CallingConv::Cold) {
    Out.Conservative = true;
    return Out;
  }
  Assigner A(*CB.getModule(), Out);
  for (unsigned No = 0, E = CB.arg_size(); No != E; ++No) {
    ArgDesc D;
    D.V = CB.getArgOperand(No);
    D.Ty = D.V->getType();
    D.ByValTy = CB.getParamByValType(No);
    D.Align = CB.getParamAlign(No);
    D.Unmodelled = unmodelledParam(CB.getAttributes(), No);
    D.StructRet = CB.paramHasAttr(No, Attribute::StructRet);
    A.assign(D);
  }
  return Out;
}

} // namespace copystack
