//===- DispatchStubs.h - let the linker decide what a call reaches -------===//
//
// A call to a function another object defines cannot know at compile time
// whether that object was instrumented, so the call tests the callee's
// prefix at run time (ForeignCalls.h): a load, a compare and a branch at
// every such call, a register held for the magic word, and a cold foreign
// path beside each. In a program of many source files most calls are of
// this kind (Lua: 3,383 of them), and most reach instrumented code.
//
// The linker knows. A call to a declared function F goes instead to
//
//     __copystack_dispatch.F
//
// which every object that makes such calls defines weakly (hidden, in its
// own COMDAT group) as a small instrumented function that calls F with the
// run-time test. Every object that defines F instrumented, with a
// definition the linker and loader cannot replace (external, dso_local),
// also defines __copystack_dispatch.F, strongly, as a hidden alias of F. In
// one link unit (an executable or a shared library) the strong definition
// wins: the call reaches F itself, with no test and no extra frame. Where
// there is none (libc, an uninstrumented object, another shared object) the
// weak stub makes the call as before, one frame deeper.
//
// Only plain calls of non-variadic C-convention declarations through their
// own type are redirected; the rest keep the test at the call site.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_DISPATCHSTUBS_H
#define COPYSTACK_PASSES_DISPATCHSTUBS_H

#include "Policy.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace copystack {

class DispatchStubs {
public:
  explicit DispatchStubs(llvm::Module &M) : M(M) {}

  /// Sends F's calls that would be dispatched at run time to the stubs.
  /// Returns how many calls were redirected.
  unsigned redirect(llvm::Function &F, const Policy &P);

  /// The stubs made so far: they are to be instrumented like F was.
  llvm::ArrayRef<llvm::Function *> created() const { return Created; }

private:
  llvm::Module &M;
  llvm::SmallVector<llvm::Function *, 16> Created;

  llvm::Function *stubFor(llvm::Function &Callee, const llvm::Function &Caller);
};

/// For each function of Instrumented that callers elsewhere may reach
/// through __copystack_dispatch.<name>: the hidden alias that binds them to
/// it at link time.
void defineDispatchAliases(llvm::Module &M,
                           llvm::ArrayRef<llvm::Function *> Instrumented);

} // namespace copystack

#endif
