//===- TypeLayout.cpp - pointer word layouts of IR types ------------------===//
#include "TypeLayout.h"
#include "Names.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"

using namespace llvm;

namespace copystack {

bool isStackPointerType(const Type *T) {
  return T->isPointerTy() && T->getPointerAddressSpace() == 0;
}

bool containsStackPointer(const Type *T) {
  if (isStackPointerType(T))
    return true;
  if (auto *VT = dyn_cast<VectorType>(T))
    return isStackPointerType(VT->getElementType());
  if (auto *AT = dyn_cast<ArrayType>(T))
    return containsStackPointer(AT->getElementType());
  if (auto *ST = dyn_cast<StructType>(T))
    for (Type *E : ST->elements())
      if (containsStackPointer(E))
        return true;
  return false;
}

static void markWord(WordLayout &L, uint64_t Offset) {
  if (Offset % WordSize) {
    L.Unaligned = true;
    return;
  }
  uint64_t W = Offset / WordSize;
  if (W >= L.Pointers.size())
    L.Pointers.resize(W + 1);
  L.Pointers.set(W);
}

void addTypeLayout(const DataLayout &DL, Type *T, uint64_t Offset,
                   WordLayout &L) {
  if (isStackPointerType(T)) {
    markWord(L, Offset);
    return;
  }
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    if (!isStackPointerType(VT->getElementType()))
      return;
    for (unsigned I = 0, E = VT->getNumElements(); I != E; ++I)
      markWord(L, Offset + I * WordSize);
    return;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    Type *Elem = AT->getElementType();
    if (!containsStackPointer(Elem))
      return;
    uint64_t Stride = DL.getTypeAllocSize(Elem);
    for (uint64_t I = 0, E = AT->getNumElements(); I != E; ++I)
      addTypeLayout(DL, Elem, Offset + I * Stride, L);
    return;
  }
  if (auto *ST = dyn_cast<StructType>(T)) {
    if (!containsStackPointer(ST))
      return;
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned I = 0, E = ST->getNumElements(); I != E; ++I)
      addTypeLayout(DL, ST->getElementType(I),
                    Offset + SL->getElementOffset(I), L);
  }
}

WordLayout layoutOf(const DataLayout &DL, Type *T) {
  WordLayout L;
  L.Pointers.resize(wordsFor(DL.getTypeAllocSize(T)));
  addTypeLayout(DL, T, 0, L);
  return L;
}

// The access type a TBAA tag names: the scalar type node of the tag.
static StringRef tbaaAccessTypeName(const Instruction *I) {
  MDNode *Tag = I->getMetadata(LLVMContext::MD_tbaa);
  if (!Tag || Tag->getNumOperands() < 2)
    return {};
  auto *AccessTy = dyn_cast<MDNode>(Tag->getOperand(1));
  if (!AccessTy || AccessTy->getNumOperands() < 1)
    return {};
  auto *Name = dyn_cast<MDString>(AccessTy->getOperand(0));
  return Name ? Name->getString() : StringRef();
}

// A TBAA type that names a non-pointer scalar: what clang emits for the
// program's own integer and floating-point loads.
static bool namesNonPointerScalar(StringRef Name) {
  if (Name.empty())
    return false;
  if (Name == "any pointer" || Name == "omnipotent char" ||
      Name == "vtable pointer" || Name.starts_with("p1 ") ||
      Name.starts_with("p2 ") || Name.starts_with("p3 ") ||
      Name.contains('*'))
    return false;
  return true;
}

static bool isWideInteger(const Type *T) {
  if (auto *VT = dyn_cast<VectorType>(T))
    T = VT->getElementType();
  return T->isIntegerTy() && T->getIntegerBitWidth() >= 64;
}

bool mayCarryPointerBits(const Value *Root) {
  if (!isWideInteger(Root->getType()))
    return false;
  return findInWalk(Root, [](const Value *V, auto Next) {
    if (auto *LI = dyn_cast<LoadInst>(V)) {
      if (LI->getFunction()->hasOptNone() ||
          LI->getMetadata(names::PinnedMD))
        return false;
      return !namesNonPointerScalar(tbaaAccessTypeName(LI));
    }
    if (auto *PN = dyn_cast<PHINode>(V)) {
      for (const Value *In : PN->incoming_values())
        Next(In);
    } else if (auto *SI = dyn_cast<SelectInst>(V)) {
      Next(SI->getTrueValue());
      Next(SI->getFalseValue());
    } else if (auto *FI = dyn_cast<FreezeInst>(V)) {
      Next(FI->getOperand(0));
    } else if (auto *BC = dyn_cast<BitCastInst>(V)) {
      Next(BC->getOperand(0));
    } else if (auto *EV = dyn_cast<ExtractValueInst>(V)) {
      Next(EV->getAggregateOperand());
    } else if (auto *EE = dyn_cast<ExtractElementInst>(V)) {
      Next(EE->getVectorOperand());
    }
    return false;
  });
}

} // namespace copystack
