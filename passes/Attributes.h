//===- Attributes.h - attributes of instrumented code -------------------===//
//
// The attributes that make LLVM's backend produce what the runtime expects
// of an instrumented function, and the module-wide choices around them:
//   - setAttributes: "split-stack" (LLVM's prologue check), a frame
//     pointer where the frame map describes locals (at %rbp offsets) or
//     the user asked for one, no stack realignment (locals at fixed %rbp
//     offsets), asynchronous unwind tables (the runtime walks frames by
//     their CFA rules; exceptions), a 16-byte aligned entry after the
//     prefix;
//   - bindEagerly: every callee bound at load time, never through a lazy
//     PLT entry;
//   - referenceRuntime: a reference to a symbol only the runtime defines,
//     whose name says what a link without the runtime lacks;
//   - readAnnotations: __attribute__((annotate("copystack_nosplit"))).
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_ATTRIBUTES_H
#define COPYSTACK_PASSES_ATTRIBUTES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace copystack {

/// Reads copystack_nosplit annotations into names::NoSplitAttr.
void readAnnotations(llvm::Module &M);

/// Whether I's result or one of its operands has a type Pred accepts.
bool hasValueOfType(const llvm::Instruction &I,
                    llvm::function_ref<bool(const llvm::Type *)> Pred);

/// Whether F calls nothing, nor has anything the backend may turn into a
/// call (a runtime routine, an entry or exit hook). A leaf loop poll
/// (names::LeafPollMD) is no call: the stack does not move at it.
bool makesNoCalls(const llvm::Function &F);

/// The code-generation attributes of an instrumented function; HasLocals:
/// its frame map describes locals at offsets from %rbp. True when F is to
/// get the own prologue's check (placeOwnChecks decides, once the module's
/// functions are all instrumented).
bool setAttributes(llvm::Function &F, bool HasLocals);

/// Under the own prologue: the check at the entry of each function of
/// Wanting (in the module's order), but for those whose every call goes to
/// one that checks, which get a small frame's probe instead (abi.h,
/// COPYSTACK_ELIDED_FRAME).
void placeOwnChecks(llvm::ArrayRef<llvm::Function *> Wanting);

/// Binds every callee of the module at load time (nonlazybind, RtLibUseGOT).
void bindEagerly(llvm::Module &M);

/// Makes the module refer to COPYSTACK_RUNTIME_SYMBOL (abi.h).
void referenceRuntime(llvm::Module &M);

} // namespace copystack

#endif
