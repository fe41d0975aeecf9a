//===- CopyStack.h - the copystack instrumentation pass ------------------===//
//
// The module pass that makes a translation unit run on copyable stacks, in
// this order (each step is its own file):
//
//   Policy           which functions are instrumented, and why not
//   ForeignCalls     calls that may reach foreign code go through the
//                    system stack
//   landing pads     re-establish the stack limit after unwinding
//   SafepointSpills  pointer values live across safepoints get slots
//   FrameMaps        localescape, resolver, frame map, magic prefix
//   attributes       "split-stack", frame pointers, unwind tables
//
// It runs at the end of the optimization pipeline (OptimizerLast), at -O0
// too, so nothing after it but code generation changes the IR it described.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_COPYSTACK_H
#define COPYSTACK_PASSES_COPYSTACK_H

#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

namespace copystack {

class CopyStackPass : public llvm::PassInfoMixin<CopyStackPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// Registers "copystack" for -passes= and at the OptimizerLast extension
/// point. Used by both the clang plugin and the LLVM-only pass plugin.
void registerPasses(llvm::PassBuilder &PB);

} // namespace copystack

#endif
