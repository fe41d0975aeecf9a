//===- TargetCheck.cpp - what copystack can compile for -----------------===//
#include "TargetCheck.h"
#include "target/Target.h"

#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace copystack {

std::string unsupportedTarget(const Triple &T) {
  if (T.getArch() == Triple::x86_64 && T.isOSLinux() && !T.isX32())
    return "";
  // The AArch64 port in progress (docs/porting.md): only with the hidden
  // -mllvm -copystack-experimental-aarch64 (target/Target.h).
  if (experimentalAArch64() && T.getArch() == Triple::aarch64 &&
      T.isOSLinux())
    return "";
  return "copystack supports x86-64 Linux only (this compilation targets " +
         T.str() + "): drop -m32, -mx32 or --target, or build without the " +
         "copystack plugin";
}

std::string splitStackConflict() {
  return "copystack: -fsplit-stack cannot be combined with the copystack "
         "plugin, which gives every function copystack's own split-stack "
         "prologue and runtime (__morestack): drop -fsplit-stack";
}

std::string unsupportedModule(const Module &M) {
  Triple T(M.getTargetTriple());
  std::string Why = unsupportedTarget(T);
  if (!Why.empty())
    return Why;
  // Before the pass has run, only -fsplit-stack puts "split-stack" on
  // functions.
  for (const Function &F : M)
    if (!F.isDeclaration() && F.hasFnAttribute("split-stack"))
      return splitStackConflict();
  return "";
}

} // namespace copystack
