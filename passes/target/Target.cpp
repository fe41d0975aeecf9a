//===- Target.cpp - the target of a module -------------------------------===//
#include "target/Target.h"
#include "target/AArch64.h"
#include "target/X86_64.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace copystack {

static cl::opt<bool> ExperimentalAArch64(
    "copystack-experimental-aarch64", cl::Hidden, cl::init(false),
    cl::desc("Accept AArch64 Linux modules: the pass's AArch64 target "
             "only, for its IR tests; there is no AArch64 runtime yet "
             "(docs/porting.md)"));

bool experimentalAArch64() { return ExperimentalAArch64; }

const Target &Target::of(const Module &M) {
  static const X86_64Target X86_64;
  static const AArch64Target AArch64;
  Triple T(M.getTargetTriple());
  if (T.getArch() == Triple::x86_64)
    return X86_64;
  if (T.getArch() == Triple::aarch64 && ExperimentalAArch64)
    return AArch64;
  // TargetCheck.cpp refused the module before any pass ran.
  report_fatal_error("copystack: no target for " + Twine(T.str()));
}

} // namespace copystack
