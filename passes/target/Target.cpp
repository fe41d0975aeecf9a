//===- Target.cpp - the target of a module -------------------------------===//
#include "target/Target.h"
#include "target/X86_64.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace copystack {

const Target &Target::of(const Module &M) {
  static const X86_64Target X86_64;
  Triple T(M.getTargetTriple());
  if (T.getArch() == Triple::x86_64)
    return X86_64;
  // TargetCheck.cpp refused the module before any pass ran.
  report_fatal_error("copystack: no target for " + Twine(T.str()));
}

} // namespace copystack
