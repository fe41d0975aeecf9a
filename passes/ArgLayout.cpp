//===- ArgLayout.cpp - System V x86-64 incoming argument assignment ------===//
#include "ArgLayout.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace copystack {

static constexpr unsigned NumGPRs = 6;
static constexpr unsigned NumXMMs = 8;

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

class Assigner {
public:
  Assigner(const DataLayout &DL, ArgLayout &Out) : DL(DL), Out(Out) {}

  void assignArgument(Argument &A) {
    const Function &F = *A.getParent();
    unsigned No = A.getArgNo();
    if (Type *ByValTy = F.getParamByValType(No)) {
      assignByVal(A, ByValTy);
      return;
    }
    if (F.hasParamAttribute(No, Attribute::Nest) ||
        F.hasParamAttribute(No, Attribute::SwiftSelf) ||
        F.hasParamAttribute(No, Attribute::SwiftError) ||
        F.hasParamAttribute(No, Attribute::SwiftAsync) ||
        F.hasParamAttribute(No, Attribute::InAlloca) ||
        F.hasParamAttribute(No, Attribute::Preallocated)) {
      Out.Conservative = true;
      return;
    }
    assignLeaves(A, A.getType());
  }

private:
  const DataLayout &DL;
  ArgLayout &Out;
  unsigned GPRs = 0;
  unsigned XMMs = 0;
  uint64_t Stack = 0;

  uint64_t allocateStack(uint64_t Size, uint64_t Align) {
    uint64_t Offset = alignTo(Stack, Align);
    Stack = Offset + Size;
    Out.StackBytes = Stack;
    return Offset;
  }

  void assignByVal(Argument &A, Type *T) {
    const Function &F = *A.getParent();
    uint64_t Size = std::max<uint64_t>(DL.getTypeAllocSize(T), 8);
    uint64_t Align = DL.getABITypeAlign(T).value();
    if (MaybeAlign PA = F.getParamAlign(A.getArgNo()))
      Align = PA->value();
    Align = std::max<uint64_t>(Align, 8);
    uint64_t Offset = allocateStack(Size, Align);
    StackArgObject O;
    O.Offset = Offset;
    O.Size = Size;
    O.Layout = layoutOf(DL, T);
    O.Layout.Pointers.resize(wordsFor(Size));
    O.Arg = &A;
    O.ByVal = true;
    if (Out.ByValOffset.size() <= A.getArgNo())
      Out.ByValOffset.resize(A.getArgNo() + 1, -1);
    Out.ByValOffset[A.getArgNo()] = static_cast<int64_t>(Offset);
    Out.StackObjects.push_back(std::move(O));
  }

  void assignLeaves(Argument &A, Type *T) {
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

  void assignGPROrStack(Argument &A, bool IsPointer) {
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
      O.Arg = &A;
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

  void assignScalar(Argument &A, Type *T) {
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

ArgLayout computeArgLayout(const Function &F) {
  ArgLayout Out;
  if (!isModelledCallingConv(F)) {
    Out.Conservative = true;
    return Out;
  }
  Assigner A(F.getParent()->getDataLayout(), Out);
  for (Argument &Arg : const_cast<Function &>(F).args())
    A.assignArgument(Arg);
  return Out;
}

} // namespace copystack
