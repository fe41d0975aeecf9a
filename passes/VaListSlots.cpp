//===- VaListSlots.cpp - va_lists that no stack object describes ----------===//
#include "VaListSlots.h"
#include "Names.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace copystack {

namespace {

// clang's va_list record: x86-64's element { i32, i32, ptr, ptr }
// (struct.__va_list_tag); AArch64's { ptr, ptr, ptr, i32, i32 }
// (struct.__va_list in C, struct.std::__va_list in C++), whose three
// pointers the runtime relocates (machine.h kVaListAddressWords). A
// suffix (.0, .1) is a second module's copy after linking.
bool isVaListTag(const Type *T) {
  auto *ST = dyn_cast<StructType>(T);
  if (!ST || !ST->hasName())
    return false;
  StringRef Name = ST->getName();
  if (Name.starts_with("struct.__va_list_tag"))
    return true;
  for (StringRef AArch64 : {"struct.__va_list", "struct.std::__va_list"})
    if (Name == AArch64 ||
        (Name.starts_with(AArch64) && Name[AArch64.size()] == '.'))
      return ST->getNumElements() == 5 && ST->getElementType(0)->isPointerTy();
  return false;
}

// Byte offsets of the va_list elements inside an object of type T. Arrays
// of more than Limit elements are not searched (a va_list is never kept in
// bulk).
void vaListOffsets(const DataLayout &DL, Type *T, uint64_t Base,
                   SmallVectorImpl<uint64_t> &Out) {
  constexpr uint64_t Limit = 64;
  if (isVaListTag(T)) {
    Out.push_back(Base);
    return;
  }
  if (auto *ST = dyn_cast<StructType>(T)) {
    if (ST->isOpaque())
      return;
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned I = 0, E = ST->getNumElements(); I != E; ++I)
      vaListOffsets(DL, ST->getElementType(I),
                    Base + SL->getElementOffset(I), Out);
    return;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    if (AT->getNumElements() > Limit)
      return;
    uint64_t Step = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t I = 0, E = AT->getNumElements(); I != E; ++I)
      vaListOffsets(DL, AT->getElementType(), Base + I * Step, Out);
  }
}

bool isStackObject(const Value *P) {
  auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(P));
  return AI && AI->isStaticAlloca();
}

} // namespace

bool holdsVaList(const DataLayout &DL, Type *T) {
  SmallVector<uint64_t, 2> Offsets;
  vaListOffsets(DL, T, 0, Offsets);
  return !Offsets.empty();
}

unsigned addVaListSlots(Function &F, ArrayRef<PinnedObject> Pinned) {
  Module &M = *F.getParent();
  const DataLayout &DL = M.getDataLayout();
  LLVMContext &C = M.getContext();
  PointerType *Ptr = PointerType::get(C, 0);
  BasicBlock &Entry = F.getEntryBlock();
  unsigned Slots = 0;

  auto newSlot = [&](const Twine &Name) {
    IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
    AllocaInst *Slot = EB.CreateAlloca(Ptr, nullptr, Name);
    Slot->setMetadata(names::VaListRefMD, MDNode::get(C, {}));
    ++Slots;
    return Slot;
  };

  // Pinned locals holding va_lists: named for the frame's life, from the
  // point their pinned address exists (before any call that may move the
  // stack: the pinned block is allocated at entry).
  for (const PinnedObject &PO : Pinned) {
    SmallVector<uint64_t, 2> Offsets;
    vaListOffsets(DL, PO.Type, 0, Offsets);
    for (uint64_t Off : Offsets) {
      AllocaInst *Slot = newSlot(PO.Address->getName() + ".va_list_ref");
      auto *At = cast<Instruction>(PO.Address);
      IRBuilder<> B(At->getParent(), std::next(At->getIterator()));
      B.CreateStore(B.CreateConstGEP1_64(B.getInt8Ty(), PO.Address, Off),
                    Slot);
    }
  }

  // va_copy and va_start into memory that is not a stack object of F.
  SmallVector<IntrinsicInst *, 4> Fills, Ends;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
        Intrinsic::ID ID = II->getIntrinsicID();
        if ((ID == Intrinsic::vacopy || ID == Intrinsic::vastart) &&
            !isStackObject(II->getArgOperand(0)))
          Fills.push_back(II);
        else if (ID == Intrinsic::vaend)
          Ends.push_back(II);
      }
  if (Fills.empty())
    return Slots;
  SmallVector<AllocaInst *, 4> FillSlots;
  IRBuilder<> Init(&Entry, Entry.getFirstNonPHIOrDbgOrAlloca());
  for (IntrinsicInst *II : Fills) {
    AllocaInst *Slot = newSlot("cs.va_list_ref");
    Init.CreateStore(ConstantPointerNull::get(Ptr), Slot);
    IRBuilder<>(II).CreateStore(II->getArgOperand(0), Slot);
    FillSlots.push_back(Slot);
  }
  for (IntrinsicInst *End : Ends) {
    IRBuilder<> B(End->getNextNode());
    for (AllocaInst *Slot : FillSlots) {
      Value *Cur = B.CreateLoad(Ptr, Slot);
      Value *Same = B.CreateICmpEQ(Cur, End->getArgOperand(0));
      B.CreateStore(B.CreateSelect(Same, ConstantPointerNull::get(Ptr), Cur),
                    Slot);
    }
  }
  return Slots;
}

} // namespace copystack
