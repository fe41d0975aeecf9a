//===- VaListSlots.h - va_lists that no stack object describes ------------===//
//
// A va_list holds addresses on a copyable stack. x86-64's two: its overflow
// area (the variadic arguments the caller passed on the stack) and its
// register save area (in the variadic shim's frame, VarargShims.h);
// AArch64's three: the stack arguments and the tops of the general and
// vector register save areas (in the variadic function's frame). A va_list that is a
// stack object of the frame is described by its type like any object. One
// that is not, the runtime could not find: a va_list local that moved to the
// pinned area, a va_list on the heap, another frame's va_list filled
// through a pointer. For those the frame keeps a slot the map describes as
// COPYSTACK_OBJ_VALIST_REF (abi.h), naming the va_list, and the runtime
// relocates its addresses through it:
//
//   - a pinned local holding va_lists (its type says where): one slot per
//     va_list, set at entry and kept for the frame's life, since a callee
//     may fill the list through a pointer at any time;
//   - va_copy or va_start into memory other than this frame's stack
//     objects: a slot per call site, set right before it, cleared by a
//     va_end of the same address (C requires va_end in the same function;
//     the memory may be freed after it).
//
// This is the one kind of memory off the stack that may hold an address
// inside a copyable stack (docs/maps.md, "The invariant").
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_VALISTSLOTS_H
#define COPYSTACK_PASSES_VALISTSLOTS_H

#include "PinnedAllocas.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Function.h"

namespace copystack {

/// Adds the slots above to F, after pinning (Pinned: what moved). Returns
/// the number of slots.
unsigned addVaListSlots(llvm::Function &F, llvm::ArrayRef<PinnedObject> Pinned);

/// Whether an object of type T holds a va_list (which the slots above name
/// from the point its pinned address exists).
bool holdsVaList(const llvm::DataLayout &DL, llvm::Type *T);

} // namespace copystack

#endif
