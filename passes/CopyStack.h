//===- CopyStack.h - the copystack instrumentation pass ------------------===//
//
// The module pass that makes a translation unit run on copyable stacks.
// This is the one place the order of its steps is written; CopyStack.cpp
// runs them in this order, each step in a file of its own:
//
//   on the module
//     Attributes        copystack_nosplit annotations
//     VarargShims       each variadic function becomes a shim and a body
//     Policy            which functions are instrumented, and why not
//                       (a warning for each that runs on the thread's stack)
//     BlockingCalls     read, accept, poll, sleep... call the runtime's
//                       wrappers, which park the task instead of blocking
//     StackDepthChecks  warnings where code keeps stack addresses as integers
//                       (in clang, StackDepthCheckPass warns before the
//                       sanitizers' passes instead)
//     EscapeAnalysis    nocapture inferred for the module's own parameters
//   on each instrumented function
//     EscapeAnalysis    the frame locals whose address may outlive the frame
//     PinnedAllocas     those, VLAs and over-aligned locals move to the
//                       pinned area; byval copies too
//     VaListSlots       slots naming va_lists no stack object describes
//     MemIntrinsics     -O0: large mem intrinsics become calls
//     Exceptions        landing pads re-establish the limit, keep the handler
//                       CFA in a described slot; resume is a foreign call
//     Setjmp            a slot naming each jmp_buf, the limit after setjmp
//     ThreadIdentity    thread_local addresses through per-variable accessors
//     ForeignCalls      calls that may reach foreign code go through the
//                       thread's stack
//     LoopPolls         loops that reach no prologue check poll for
//                       preemption at their back edges
//     FrameMaps         localescape, resolver, frame map, magic prefix
//     Attributes        "split-stack", frame pointers where the map has
//                       locals, unwind tables
//   on the module again
//     ThreadIdentity    functions left on the thread's stack get the plain
//                       thread_local intrinsic back
//     Attributes        every callee bound at load time
//
// (ThreadIdentityPass also runs at the start of the pipeline, before the
// optimizer, to keep thread-identity calls from being merged across calls.)
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

/// The StackDepthChecks warnings alone, on the IR the optimizer made and
/// before the sanitizers' passes add their own integer arithmetic on stack
/// addresses (ASan's shadow checks compare one with a shadow byte loaded
/// from memory): clang registers those after the plugins' OptimizerLast
/// callbacks, and this one is registered first. CopyStackPass warns itself
/// when this did not run (opt -passes=copystack).
class StackDepthCheckPass : public llvm::PassInfoMixin<StackDepthCheckPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// Registers "copystack" for -passes= and at the OptimizerLast extension
/// point. Used by both the clang plugin and the LLVM-only pass plugin.
void registerPasses(llvm::PassBuilder &PB);

} // namespace copystack

#endif
