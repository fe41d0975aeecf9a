//===- X86Asm.h - inline asm the pass builds ------------------------------===//
//
// Clang gives every x86 asm statement the clobbers ~{dirflag},~{fpsr} and
// ~{flags}; asm built in IR has only what its constraints say. Without
// ~{flags}, the backend takes the asm to keep EFLAGS and may test a
// compare's flags after it: a `subq` or `addq` in the asm then decides the
// branch instead (a silent wrong path: test/lit/e2e/libc_in_place_
// interposed.c). Every inline asm the pass emits is built here.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_X86ASM_H
#define COPYSTACK_PASSES_X86ASM_H

#include "llvm/ADT/Twine.h"
#include "llvm/IR/InlineAsm.h"

namespace copystack {

/// A side-effecting asm of type Ty, with Constraints for its operands and
/// the clobbers clang's x86 asm statements have.
inline llvm::InlineAsm *x86Asm(llvm::FunctionType *Ty, const llvm::Twine &Text,
                               llvm::StringRef Constraints) {
  std::string C = Constraints.str();
  if (!C.empty())
    C += ",";
  C += "~{dirflag},~{fpsr},~{flags}";
  return llvm::InlineAsm::get(Ty, Text.str(), C, /*hasSideEffects=*/true);
}

} // namespace copystack

#endif
