//===- StackObjects.cpp - use-based layouts of stack objects -------------===//
#include "StackObjects.h"
#include "MemIntrinsics.h"
#include "Sanitizers.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/CommandLine.h"

#include <optional>

using namespace llvm;

namespace copystack {

namespace {

class UseWalker {
public:
  UseWalker(const DataLayout &DL, WordLayout &L) : DL(DL), L(L) {}

  void run(Value *Base) {
    Work.push_back({Base, 0});
    while (!Work.empty() && !All) {
      auto [V, Off] = Work.pop_back_val();
      if (!Seen.insert(V).second)
        continue;
      for (Use &U : V->uses())
        visit(U, Off);
    }
    if (All)
      L.Pointers.set();
  }

private:
  const DataLayout &DL;
  WordLayout &L;
  bool All = false;
  SmallVector<std::pair<Value *, std::optional<int64_t>>, 16> Work;
  SmallPtrSet<Value *, 16> Seen;

  void everything() { All = true; }

  void range(std::optional<int64_t> Off, std::optional<uint64_t> Len) {
    if (!Off || !Len || *Off < 0) {
      everything();
      return;
    }
    uint64_t Begin = static_cast<uint64_t>(*Off) / WordSize;
    uint64_t End = wordsFor(static_cast<uint64_t>(*Off) + *Len);
    End = std::min<uint64_t>(End, L.Pointers.size());
    for (uint64_t W = Begin; W < End; ++W)
      L.Pointers.set(W);
  }

  void storedValue(Value *Stored, std::optional<int64_t> Off) {
    Type *T = Stored->getType();
    bool Carries = containsStackPointer(T) || mayCarryPointerBits(Stored);
    if (!Carries)
      return;
    if (!Off || *Off < 0) {
      everything();
      return;
    }
    if (containsStackPointer(T) && !mayCarryPointerBits(Stored)) {
      WordLayout Tmp;
      Tmp.Pointers.resize(L.Pointers.size());
      addTypeLayout(DL, T, static_cast<uint64_t>(*Off), Tmp);
      if (Tmp.Unaligned) {
        L.Unaligned = true;
        everything();
        return;
      }
      Tmp.Pointers.resize(L.Pointers.size());
      L.Pointers |= Tmp.Pointers;
      return;
    }
    range(Off, DL.getTypeStoreSize(T).getFixedValue());
  }

  static std::optional<uint64_t> constLength(Value *Len) {
    if (auto *C = dyn_cast<ConstantInt>(Len))
      return C->getZExtValue();
    return std::nullopt;
  }

  void visit(Use &U, std::optional<int64_t> Off) {
    auto *I = dyn_cast<Instruction>(U.getUser());
    if (!I) {
      everything();
      return;
    }
    if (auto *GEP = dyn_cast<GetElementPtrInst>(I)) {
      APInt C(64, 0);
      std::optional<int64_t> NewOff;
      if (Off && GEP->accumulateConstantOffset(DL, C))
        NewOff = *Off + C.getSExtValue();
      Work.push_back({GEP, NewOff});
      return;
    }
    if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I)) {
      Work.push_back({I, Off});
      return;
    }
    if (isa<PHINode>(I) || isa<SelectInst>(I) || isa<FreezeInst>(I)) {
      Work.push_back({I, std::nullopt});
      return;
    }
    if (isa<LoadInst>(I) || isa<ICmpInst>(I))
      return;
    if (auto *SI = dyn_cast<StoreInst>(I)) {
      if (U.getOperandNo() == StoreInst::getPointerOperandIndex())
        storedValue(SI->getValueOperand(), Off);
      else
        everything(); // the object's address is stored: anyone may write it
      return;
    }
    if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I)) {
      if (U.getOperandNo() == AtomicCmpXchgInst::getPointerOperandIndex())
        storedValue(CX->getNewValOperand(), Off);
      else
        everything();
      return;
    }
    if (auto *RMW = dyn_cast<AtomicRMWInst>(I)) {
      if (U.getOperandNo() == AtomicRMWInst::getPointerOperandIndex())
        storedValue(RMW->getValOperand(), Off);
      else
        everything();
      return;
    }
    if (auto *II = dyn_cast<IntrinsicInst>(I)) {
      switch (II->getIntrinsicID()) {
      case Intrinsic::lifetime_start:
      case Intrinsic::lifetime_end:
      case Intrinsic::invariant_start:
      case Intrinsic::invariant_end:
      case Intrinsic::assume:
      case Intrinsic::memset:
      case Intrinsic::memset_inline:
      case Intrinsic::prefetch:
      case Intrinsic::localescape:
        return;
      case Intrinsic::memcpy:
      case Intrinsic::memcpy_inline:
      case Intrinsic::memmove:
        if (U.getOperandNo() == 0)
          range(Off, constLength(II->getArgOperand(2)));
        return;
      default:
        break;
      }
    }
    if (auto *CB = dyn_cast<CallBase>(I)) {
      if (CB->isArgOperand(&U)) {
        unsigned ArgNo = CB->getArgOperandNo(&U);
        if (CB->onlyReadsMemory(ArgNo) && CB->doesNotCapture(ArgNo))
          return;
        // A sanitizer's check of the access that follows it (__tsan_write8,
        // __asan_load4...): that access says what the object holds.
        if (isSanitizerCheck(*CB) && !sanitizerCheckWrites(*CB))
          return;
      }
      everything();
      return;
    }
    if (isa<PtrToIntInst>(I)) {
      // The address as an integer may come back as a pointer anywhere.
      everything();
      return;
    }
    everything();
  }
};

} // namespace

void addUseLayout(const DataLayout &DL, Value *Base, uint64_t ObjectBytes,
                  WordLayout &Layout) {
  Layout.Pointers.resize(wordsFor(ObjectBytes));
  UseWalker(DL, Layout).run(Base);
}

WordLayout describeStackObject(const DataLayout &DL, Value *Base,
                               Type *DeclaredType, uint64_t ObjectBytes) {
  WordLayout L;
  L.Pointers.resize(wordsFor(ObjectBytes));
  if (DeclaredType)
    addTypeLayout(DL, DeclaredType, 0, L);
  L.Pointers.resize(wordsFor(ObjectBytes));
  if (L.Unaligned)
    L.Pointers.set();
  addUseLayout(DL, Base, ObjectBytes, L);
  return L;
}

// Off only to measure what the zeroing costs (scripts/bench-overhead): the
// words it protects can then change at a move.
static cl::opt<bool> ZeroObjectsOpt(
    "copystack-zero-objects", cl::Hidden, cl::init(true),
    cl::desc("Zero every stack object at the start of its lifetime (off: "
             "unsafe, for measuring the cost only)"));

// Whether the first instruction at or after At that touches memory writes
// all Bytes of AI: then zeroes before it would be dead.
static bool overwrittenWhole(const DataLayout &DL, Instruction *At,
                             AllocaInst *AI, uint64_t Bytes) {
  for (Instruction *I = At; I; I = I->getNextNode()) {
    if (isa<DbgInfoIntrinsic>(I))
      continue;
    if (auto *II = dyn_cast<IntrinsicInst>(I))
      if (II->isLifetimeStartOrEnd())
        continue;
    if (!I->mayReadOrWriteMemory()) // address arithmetic, casts
      continue;
    if (auto *MI = dyn_cast<MemIntrinsic>(I)) {
      auto *Len = dyn_cast<ConstantInt>(MI->getLength());
      return MI->getDest()->stripPointerCasts() == AI && Len &&
             Len->getZExtValue() >= Bytes;
    }
    // (An aggregate's store size counts its padding, which the store does
    // not write.)
    if (auto *SI = dyn_cast<StoreInst>(I)) {
      Type *T = SI->getValueOperand()->getType();
      return SI->getPointerOperand()->stripPointerCasts() == AI &&
             !T->isAggregateType() &&
             DL.getTypeStoreSize(T).getFixedValue() >= Bytes;
    }
    return false;
  }
  return false;
}

void zeroStackObject(const DataLayout &DL, AllocaInst *AI, uint64_t Bytes) {
  if (!ZeroObjectsOpt)
    return;
  SmallVector<Instruction *, 4> At;
  for (User *U : AI->users())
    if (auto *II = dyn_cast<IntrinsicInst>(U))
      if (II->getIntrinsicID() == Intrinsic::lifetime_start)
        At.push_back(II->getNextNode());
  // Without lifetime markers the object lives for the whole call: before
  // its first use, which follows the entry block's allocas.
  if (At.empty())
    At.push_back(&*AI->getParent()->getFirstNonPHIOrDbgOrAlloca());
  for (Instruction *I : At) {
    if (overwrittenWhole(DL, I, AI, Bytes))
      continue;
    IRBuilder<> B(I);
    zeroMemory(B, AI, Bytes, AI->getAlign());
  }
}

} // namespace copystack
