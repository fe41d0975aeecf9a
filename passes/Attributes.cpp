//===- Attributes.cpp - attributes of instrumented code -----------------===//
#include "Attributes.h"
#include "Names.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace copystack {

// No call in the function once the passes are done (loop polls, foreign
// calls, the sanitizers' hooks and the memory intrinsics made calls are
// calls by then): only intrinsics that are not llvm.localescape (whose
// offsets the frame map reads from %rbp). Inline assembly counts as a call.
static bool makesNoCalls(const Function &F) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (const auto *CB = dyn_cast<CallBase>(&I)) {
        const Function *Callee = CB->getCalledFunction();
        if (!Callee || !Callee->isIntrinsic() ||
            Callee->getIntrinsicID() == Intrinsic::localescape)
          return false;
      }
  return true;
}

void setAttributes(Function &F) {
  // A variadic shim has no prologue check (LLVM refuses one): its frame
  // fits the guard band's budget, and the body it calls checks at once.
  if (!F.hasFnAttribute(names::VarargShimAttr))
    F.addFnAttr("split-stack");
  // Frames are walked through the %rbp chain, from call sites. A function
  // that calls nothing is never on that chain while a stack moves (it has
  // no call site, no loop poll, nothing that parks), so it keeps no frame
  // pointer: a leaf that needs no stack then has no frame and no prologue
  // check at all (LLVM checks only frames of nonzero size), and one that
  // spills keeps the check. Calls the backend itself adds to such a
  // function (a libcall for a 128-bit division, a math routine) reach code
  // that never calls back into instrumented code, and a function that
  // calls has a frame, so it is checked.
  F.addFnAttr("frame-pointer", makesNoCalls(F) ? "none" : "all");
  // Locals sit at fixed %rbp offsets only in frames LLVM does not realign:
  // over-aligned locals are pinned, and AVX spills use unaligned moves.
  F.addFnAttr("no-realign-stack");
  F.setUWTableKind(UWTableKind::Async);
  // Prefix data sits right before the entry; keep the entry aligned.
  if (!F.getAlign() || F.getAlign()->value() < 16)
    F.setAlignment(Align(16));
}

// The first call through a lazily bound PLT entry runs the dynamic linker's
// resolver on the caller's stack, with an XSAVE area far larger than the
// guard band. Bind every callee of instrumented code at load time instead:
// calls through the GOT (what -fno-plt does), libcalls the backend emits
// included. That covers definitions a shared library's own code calls
// through its PLT because they may be interposed.
void bindEagerly(Module &M) {
  for (Function &F : M)
    if (!F.isIntrinsic() && !F.isDSOLocal() && !F.hasLocalLinkage())
      F.addFnAttr(Attribute::NonLazyBind);
  M.setRtLibUseGOT();
}

// Instrumented code linked without the runtime fails on __copystack_*
// symbols whose names do not say what is missing. Refer to one more, which
// only the runtime defines (abi.h, COPYSTACK_RUNTIME_SYMBOL), so that the
// linker's error names the cure. One word of relocated data per object;
// nothing runs.
void referenceRuntime(Module &M) {
  LLVMContext &C = M.getContext();
  Constant *Runtime =
      M.getOrInsertGlobal(COPYSTACK_RUNTIME_SYMBOL, Type::getInt8Ty(C));
  auto *Ref = new GlobalVariable(M, PointerType::get(C, 0), /*isConstant=*/true,
                                 GlobalValue::InternalLinkage, Runtime,
                                 "__copystack_runtime_reference");
  appendToCompilerUsed(M, {Ref});
}

// __attribute__((annotate("copystack_nosplit"))) keeps a function off
// copyable stacks: clang records it in llvm.global.annotations.
void readAnnotations(Module &M) {
  GlobalVariable *GV = M.getGlobalVariable("llvm.global.annotations");
  if (!GV || !GV->hasInitializer())
    return;
  auto *Array = dyn_cast<ConstantArray>(GV->getInitializer());
  if (!Array)
    return;
  for (Value *Op : Array->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(Op);
    if (!Entry || Entry->getNumOperands() < 2)
      continue;
    auto *F = dyn_cast<Function>(Entry->getOperand(0)->stripPointerCasts());
    auto *Str =
        dyn_cast<GlobalVariable>(Entry->getOperand(1)->stripPointerCasts());
    if (!F || !Str || !Str->hasInitializer())
      continue;
    auto *Data = dyn_cast<ConstantDataArray>(Str->getInitializer());
    if (Data && Data->isCString() && Data->getAsCString() == "copystack_nosplit")
      F->addFnAttr(names::NoSplitAttr);
  }
}

} // namespace copystack
