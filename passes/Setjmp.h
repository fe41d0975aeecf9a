//===- Setjmp.h - setjmp on copyable stacks -----------------------------===//
//
// setjmp on a copyable stack (docs/design.md, "setjmp"): a slot the frame
// map describes as COPYSTACK_OBJ_JMPBUF_REF holds the jmp_buf this frame
// last passed to setjmp, so the runtime relocates the %rsp, %rbp and
// registers saved in it; and after every return of setjmp the task's limit
// is put back (a longjmp from foreign code arrives with it still 0).
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_SETJMP_H
#define COPYSTACK_PASSES_SETJMP_H

#include "llvm/IR/Function.h"

namespace copystack {

/// Gives F a jmp_buf slot and the landing hook after each setjmp (above).
void prepareSetjmp(llvm::Function &F);

} // namespace copystack

#endif
