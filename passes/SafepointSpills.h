//===- SafepointSpills.h - pointer values live across safepoints ---------===//
//
// A value that may point into the stack and is live across a call that may
// move the stack would be left in a register or a spill slot the runtime
// knows nothing about. This pass gives each such value a slot of its own: a
// static alloca the frame map describes, written once right after the value
// is defined, and read again before every use that a safepoint may separate
// from the definition. The runtime rewrites the slot when the stack moves;
// the reloaded value is the moved one.
//
// Values that need no slot:
//   - allocas and constant offsets from them: frame addresses the backend
//     rematerializes from %rbp (or keeps in callee-saved registers, which the
//     runtime adjusts through the unwind tables);
//   - byval arguments (fixed frame objects: the same);
//   - pointers whose every underlying object is a global, a constant or a
//     fresh allocation (malloc-like returns): never into a stack.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_SAFEPOINTSPILLS_H
#define COPYSTACK_PASSES_SAFEPOINTSPILLS_H

#include "Policy.h"

#include "llvm/IR/Function.h"

namespace copystack {

struct SpillStats {
  unsigned Values = 0;
  unsigned Reloads = 0;
};

/// Spills the values of F live across safepoints into slots. Returns true
/// if anything changed.
bool spillAcrossSafepoints(llvm::Function &F, const Policy &P,
                           SpillStats &Stats);

} // namespace copystack

#endif
