//===- EscapeAnalysis.h - locals that cannot stay on a copyable stack ----===//
//
// Go's rule: only the stack may point into the stack. C and C++ break it
// constantly (a std::map's nodes point at its header, a callback keeps a
// context pointer, a pointer becomes an integer), so a local whose address
// may outlive its frame or be stored where no frame map can see it moves to
// the pinned area (PinnedAllocas.h), like Go's "moved to heap: x".
//
// The memory a function owns on the copyable stack is its static allocas
// and its byval arguments: the copy of a by-value argument the caller made
// in its outgoing-argument area, which the callee uses in place and cannot
// pin where it is. Both are frame locals here. va_lists are frame locals
// like any other; one that moves off the stack keeps stack addresses (its
// register save area and overflow area), which FrameMaps describes through
// a slot (docs/maps.md, "The invariant").
//
// A frame local stays on the copyable stack only if every use of its
// address (through GEPs, casts, phis, selects) is one of:
//   - the address of a load, store, atomic, mem intrinsic, va_arg, or
//     va_start/va_copy/va_end;
//   - a comparison;
//   - an argument at a parameter that does not capture it: `nocapture`
//     (inferred optimistically for this module's own functions, and for
//     libc through LLVM's library attributes, at -O0 too), an inline asm
//     operand, or a printf-family variadic argument;
//   - a store into another local that stays and does not leak what it
//     holds (it is passed to no call, copied nowhere, and no pointer loaded
//     from it escapes);
//   - a ptrtoint whose integer only reaches comparisons and arithmetic,
//     never memory, a call, a return or an inttoptr.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_ESCAPEANALYSIS_H
#define COPYSTACK_PASSES_ESCAPEANALYSIS_H

#include "Policy.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <string>

namespace copystack {

/// Marks parameters `nocapture` where that holds: optimistically for the
/// module's instrumented functions that bind locally (a fixed point drops
/// the ones that turn out to capture), and for libc declarations from
/// LLVM's library-function knowledge.
void inferCaptures(llvm::Module &M, const Policy &P);

/// The memory F owns on the copyable stack: its byval arguments (copies
/// the caller made in its outgoing-argument area), then its static allocas.
llvm::SmallVector<llvm::Value *, 16> frameLocals(llvm::Function &F);

/// The frame locals of F (above) that must leave the copyable stack, each
/// with the reason in words, in program order.
llvm::MapVector<llvm::Value *, std::string>
findEscapingLocals(llvm::Function &F);

} // namespace copystack

#endif
