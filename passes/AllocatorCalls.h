//===- AllocatorCalls.h - malloc and free in place when it is safe -------===//
//
// Real C code calls the allocator more than any other library function
// (Lua: 1.26 million calls of realloc and free in a short script), and a
// foreign call costs a switch to the thread's stack and back, a frame of
// arguments and a thunk each time. glibc's malloc family needs about 500
// bytes of stack, so a call of malloc, free, calloc or realloc becomes
//
//     if (__copystack_alloc_in_place && rsp - limit >= COPYSTACK_ALLOC_ROOM)
//       r = malloc(n);      // in place, on the task stack
//     else
//       r = malloc(n);      // as before: dispatched, then foreign
//
// where the runtime sets the flag at start-up only if these names are
// glibc's own (copystack/abi.h). The call in place cannot move the stack
// (no instrumented code runs inside it), and it is no safepoint.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_ALLOCATORCALLS_H
#define COPYSTACK_PASSES_ALLOCATORCALLS_H

#include "Policy.h"

#include "llvm/IR/Function.h"

namespace copystack {

/// Adds the in-place path to F's allocator calls. Returns how many.
unsigned callAllocatorInPlace(llvm::Function &F, const Policy &P);

} // namespace copystack

#endif
