//===- StackDepthChecks.h - warn about stack addresses kept as integers ---===//
//
// Interpreters and parsers detect deep recursion by remembering a stack
// address (__builtin_frame_address(0), or the address of a local) as an
// integer at start-up and comparing later ones with it. On a copyable stack
// the stack moves, so such a comparison is meaningless: a limit computed on
// one stack says nothing about the next. The pass cannot fix the program,
// but it can say where the idiom is, with a warning naming the function
// (and file:line with debug info) and the replacement,
// copystack_stack_pointer() (copystack.h). It warns when an integer made
// from a stack address:
//   - is stored to memory outside the frame (a remembered stack top; frame
//     addresses only: at -O1 and above the optimizer itself copies pointers
//     to locals as integers), or
//   - is compared (<, <=, >, >=) with a value loaded from memory outside
//     the frame (a remembered limit).
// Stack addresses are the results of llvm.frameaddress, llvm.stacksave,
// llvm.addressofreturnaddress and llvm.sponentry, the addresses of the
// function's locals and byval arguments, and the results of the module's
// functions that return such an integer (-O0 keeps
// QuickJS's js_get_stack_pointer() a function of its own). Integers are
// followed through arithmetic, casts, phis, selects and the function's own
// locals; frame addresses kept as pointers are compared as such.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_STACKDEPTHCHECKS_H
#define COPYSTACK_PASSES_STACKDEPTHCHECKS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Function.h"

namespace copystack {

/// Warns once per source location (once per function without debug info)
/// in the instrumented functions Fns.
void warnStackDepthChecks(llvm::Module &M, llvm::ArrayRef<llvm::Function *> Fns);

} // namespace copystack

#endif
