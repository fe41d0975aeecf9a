//===- TypeLayout.h - which words of a value or object may hold pointers --===//
//
// The word-level view of IR types that both the argument classifier and the
// stack-object classifier need: a bitmap with one bit per 8-byte word that
// is set where the type stores a pointer (address space 0). Words that a
// pointer straddles (packed structs) make the layout "unaligned", which the
// callers turn into a conservative description.
//
// Also the one judgement the maps rely on for integers: whether an integer
// value may carry the bits of a pointer the optimizer laundered through
// memory (InstCombine turns an 8-byte memcpy of a pointer into an i64 load
// and store). See docs/maps.md, "Integers that carry pointers".
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_TYPELAYOUT_H
#define COPYSTACK_PASSES_TYPELAYOUT_H

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Type.h"
#include "llvm/IR/Value.h"

namespace copystack {

constexpr uint64_t WordSize = 8;

inline uint64_t wordsFor(uint64_t Bytes) {
  return (Bytes + WordSize - 1) / WordSize;
}

/// A word bitmap of a type: bit i set when word i may hold a pointer.
struct WordLayout {
  llvm::BitVector Pointers;
  /// A pointer lies at an offset that is not a multiple of 8.
  bool Unaligned = false;

  bool any() const { return Pointers.any() || Unaligned; }
};

/// True for the pointer types whose values can point into a copyable stack:
/// address space 0 only (address spaces 256/257 are %gs/%fs-relative).
bool isStackPointerType(const llvm::Type *T);

/// True when T contains a stack pointer type anywhere (struct members, array
/// elements, vector lanes).
bool containsStackPointer(const llvm::Type *T);

/// The pointer words of a value of type T stored at byte Offset of an
/// object of ObjectBytes bytes. Bits are added to Layout.
void addTypeLayout(const llvm::DataLayout &DL, llvm::Type *T, uint64_t Offset,
                   WordLayout &Layout);

/// The layout of an object of type T on its own.
WordLayout layoutOf(const llvm::DataLayout &DL, llvm::Type *T);

/// A worklist walk from Root over values, each visited once:
/// Visit(V, Next) calls Next(W) for the values to visit after V, and returns
/// true to stop the walk because V is what was looked for. Returns whether
/// the walk stopped so (the use-walks of EscapeAnalysis and the operand-walks
/// here share it).
template <typename VisitFn>
bool findInWalk(const llvm::Value *Root, VisitFn Visit) {
  llvm::SmallVector<const llvm::Value *, 8> Work{Root};
  llvm::SmallPtrSet<const llvm::Value *, 8> Seen;
  auto Next = [&](const llvm::Value *W) { Work.push_back(W); };
  while (!Work.empty()) {
    const llvm::Value *V = Work.pop_back_val();
    if (Seen.insert(V).second && Visit(V, Next))
      return true;
  }
  return false;
}

/// Whether an integer (or vector/aggregate of integers) may carry the bits of
/// a pointer: values loaded from memory that the program's own type
/// information (TBAA) does not name as a non-pointer scalar, through phis,
/// selects and freezes. In optnone functions (-O0) nothing was laundered by
/// the optimizer, so loads of integers are integers.
bool mayCarryPointerBits(const llvm::Value *V);

} // namespace copystack

#endif
