//===- StackObjects.h - which words of a stack object may hold pointers ---===//
//
// Every static stack object of an instrumented function (alloca in the entry
// block, byval copy in the incoming area) is described in the frame map with
// one bit per 8-byte word. A word gets its bit when something may leave a
// pointer there:
//
//   - the object's declared type has a pointer at that word;
//   - a store of a pointer (or of an integer that may carry pointer bits,
//     TypeLayout.h) writes it;
//   - an untyped write covers it: memcpy/memmove into the object, a call that
//     receives the object's address and may write through it, a store of the
//     object's address anywhere (anything may then write it), an access at an
//     offset the pass cannot compute. These make the covered words, or the
//     whole object, conservative: range-checked like any described word.
//
// Words without a bit are known non-pointers: the runtime never changes them
// (the seed's stale uintptr) and verify mode does not report them.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_STACKOBJECTS_H
#define COPYSTACK_PASSES_STACKOBJECTS_H

#include "TypeLayout.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Value.h"

namespace copystack {

/// Adds to Layout (already sized to the object) the words that the uses of
/// Base may write pointers into. Base is an alloca or a byval argument.
void addUseLayout(const llvm::DataLayout &DL, llvm::Value *Base,
                  uint64_t ObjectBytes, WordLayout &Layout);

/// The full description of a static alloca or byval object.
WordLayout describeStackObject(const llvm::DataLayout &DL, llvm::Value *Base,
                               llvm::Type *DeclaredType, uint64_t ObjectBytes);

/// Makes the static alloca AI start as Bytes zeros at each start of its
/// lifetime (at function entry if it has no lifetime markers), unless the
/// program overwrites all of it there first. Every word of a frame may be
/// range-checked, directly or after a copy through a register, and a word
/// the program writes only partly must not keep stale bytes of a dead
/// frame: with them it can look like an address inside the stack, and the
/// move would change the bytes the program wrote (docs/maps.md, "Words only
/// partly written").
void zeroStackObject(const llvm::DataLayout &DL, llvm::AllocaInst *AI,
                     uint64_t Bytes);

} // namespace copystack

#endif
