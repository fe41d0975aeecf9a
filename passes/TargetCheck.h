//===- TargetCheck.h - what copystack can compile for -------------------===//
//
// copystack's prologues, frame maps and runtime are x86-64 System V on
// Linux (abi.h). Compiling for anything else (-m32, -mx32, another
// architecture or OS) must stop with a clear error, not crash the backend
// (riscv64, x32) or produce objects that are silently wrong (i386,
// aarch64). -fsplit-stack asks for gcc's split stacks, whose prologues and
// __morestack clash with copystack's. Both the clang plugin (before code
// generation starts) and the pass (for -fpass-plugin and opt) ask here.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_TARGETCHECK_H
#define COPYSTACK_PASSES_TARGETCHECK_H

#include <string>

namespace llvm {
class Module;
class Triple;
} // namespace llvm

namespace copystack {

/// Why copystack cannot compile for T, or "" when it can.
std::string unsupportedTarget(const llvm::Triple &T);

/// The message for -fsplit-stack together with copystack.
std::string splitStackConflict();

/// Why copystack cannot instrument M (its target, or functions that
/// already ask for gcc-style split stacks), or "".
std::string unsupportedModule(const llvm::Module &M);

} // namespace copystack

#endif
