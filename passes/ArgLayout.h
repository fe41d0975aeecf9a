//===- ArgLayout.h - where a function's incoming arguments live ----------===//
//
// At the moment a function asks __morestack for more stack its prologue has
// not run: its arguments are still in the System V argument registers and
// in the caller's outgoing-argument area. The runtime relocates the ones
// that are pointers, so the map records which registers and which stack
// words they are. This is the x86-64 System V assignment as LLVM 19's
// CC_X86_64_C performs it on IR argument types (after clang's ABI lowering):
//
//   - integers up to 64 bits and pointers: RDI RSI RDX RCX R8 R9, then an
//     8-byte stack slot;
//   - i128: two consecutive GPRs, or a 16-byte-aligned 16-byte stack slot
//     without taking the remaining register (CC_X86_64_I128);
//   - half/float/double, fp128 and vectors of up to 128 bits: XMM0-7, then
//     the stack (8 or 16 bytes); x86_fp80 always on the stack (16, align 16);
//   - byval: a copy in the stack area, max(size, 8) bytes aligned to
//     max(8, align);
//   - first-class aggregates: each scalar leaf on its own.
//
// For AArch64 modules (the port in progress, docs/porting.md) the same
// for AAPCS64's scalars: x0-x7, v0-v7, then 8-byte stack slots (16 for
// 16-byte vectors); the rest is conservative.
//
// Anything else is not modelled: the map then asks the runtime to treat all
// argument registers and the whole incoming area conservatively. In verify
// mode the runtime compares stack_arg_bytes with %r11, which LLVM loads from
// its own assignment, so a disagreement is reported, not silent.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_ARGLAYOUT_H
#define COPYSTACK_PASSES_ARGLAYOUT_H

#include "TypeLayout.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"

namespace copystack {

/// An object in the incoming stack-argument area.
struct StackArgObject {
  uint64_t Offset = 0; ///< from the first stack-argument byte (CFA)
  uint64_t Size = 0;
  WordLayout Layout;
  llvm::Value *Arg = nullptr; ///< the IR argument, or the call's operand
  bool ByVal = false;
};

struct ArgLayout {
  uint32_t GPRPointerMask = 0;
  uint64_t StackBytes = 0;
  llvm::SmallVector<StackArgObject, 4> StackObjects;
  bool Conservative = false;
  bool VectorPointers = false;
};

/// Whether F's calling convention is one ArgLayout models.
bool isModelledCallingConv(const llvm::Function &F);

/// A parameter in a register other code owns, or laid out by the call
/// itself (nest, swift*, inalloca, preallocated).
bool unmodelledParam(const llvm::AttributeList &Attrs, unsigned No);

ArgLayout computeArgLayout(const llvm::Function &F);

/// The same assignment for the arguments a call passes, variadic ones
/// included: where they sit in the caller's outgoing-argument area.
ArgLayout computeCallLayout(const llvm::CallBase &CB);

} // namespace copystack

#endif
