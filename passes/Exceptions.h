//===- Exceptions.h - C++ exceptions on copyable stacks -----------------===//
//
// Exceptions on copyable stacks (docs/design.md, "Exceptions"):
//  - every landing pad first re-establishes the stack limit (foreign code
//    that threw unwound into it with the limit still 0);
//  - libgcc's phase 2 recognizes the handler frame by the CFA phase 1
//    recorded in _Unwind_Exception.private_2. A cleanup that grows the
//    stack before it resumes makes that a stale address: each landing pad
//    keeps it in a slot the frame map describes as a pointer, and puts the
//    (relocated) value back before resuming;
//  - resume becomes a call to _Unwind_Resume that ForeignCalls then sends
//    to the thread's stack: the unwinder needs far more than the guard.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_EXCEPTIONS_H
#define COPYSTACK_PASSES_EXCEPTIONS_H

#include "llvm/IR/Function.h"

namespace copystack {

/// Prepares F's landing pads and resumes (above).
void prepareExceptions(llvm::Function &F);

} // namespace copystack

#endif
