//===- Policy.h - which functions run on copyable stacks ------------------===//
//
// The one decision every other part of the pass consults: is this function
// instrumented (split-stack prologue, frame map, magic prefix), or does it
// run as foreign code on the worker's system stack?
//
// Running on the system stack is always correct: it is how code built
// without the plugin runs. So every construct the maps cannot describe
// makes its function foreign instead of being silently mis-described, and a
// remark (-Rpass-missed=copystack) names the function and the reason.
//
// Also the classification of call sites that every part shares: a call to
// an instrumented function (a safepoint: the stack may move during it), a
// call to foreign code (runs on the system stack: the stack cannot move), or
// a call whose target is only known at run time (dispatched on the magic).
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_POLICY_H
#define COPYSTACK_PASSES_POLICY_H

#include "Names.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

#include <string>

namespace copystack {

/// libc functions instrumented code calls in place, on the task stack: glibc
/// implements them as leaf assembly that uses no stack to speak of and never
/// calls back, so they fit the guard band. They are bound at load time
/// (nonlazybind), so no PLT resolver runs on a task stack either.
bool isInPlaceLibcall(llvm::StringRef Name);

/// setjmp and its kin: called in place (they save their caller's frame);
/// their second return may follow a stack move, which the jmp_buf slot
/// (Setjmp.h) accounts for.
bool isSetjmp(llvm::StringRef Name);


/// The locals (static allocas) a function may keep in its frame where the
/// check runs after the frame is set up (Target::probesLargeFrames false:
/// AArch64). What the backend stores before the check (callee-saved
/// registers at the frame's top, and at -O0 spills at its bottom) lands at
/// most the frame's size below its caller's checked frame, which is at
/// least the 928-byte guard band above the stack's bottom. A frame that
/// reaches below the stack at its check grows only when the code before
/// the check stored nothing there, which the runtime reads from the
/// instructions (arch/aarch64/prologue.h); otherwise it stops the
/// program. A function with more locals than this keeps none of them in
/// its frame: they go to the pinned area (CopyStack.cpp, pinBigFrame), so
/// that such frames stay rare (a function whose locals make most of its
/// frame has them written before its check more often).
constexpr uint64_t kUncheckedFrameLocals = 3072;

/// The registers a leaf's values are taken to fit in without spills where
/// no stack probe sizes its frame (AArch64: 31 general and 32 vector
/// registers, less x16-x18, x29 and x30 and a margin for the temporaries
/// instruction selection adds): a leaf whose most values live at once
/// exceed them, by more bytes than its budget, gets the check
/// (Attributes.cpp, leafMayOutgrowBudget).
constexpr unsigned kLeafGprs = 24;
constexpr unsigned kLeafVecs = 28;

/// The locals an optnone (-O0) function may keep in its frame where the
/// check runs after the frame is set up; with more, all of its static
/// locals go to the pinned area (CopyStack.cpp). -O0's instruction
/// selection defines locals' addresses and constants at the entry, before
/// the check, and its register allocator spills them where they are
/// defined: to the frame's bottom, which for a frame bigger than the room
/// left lies below the stack, where a growth loses them (place_block reads
/// that part as never written) and where another task's stack may be. A
/// frame of spills alone, and locals of up to this many bytes, stays
/// within the guard band (csmith programs at -O0 stored up to 3,072 bytes
/// below their entry's stack pointer before this).
constexpr uint64_t kO0FrameLocals = 256;

enum class CallKind {
  NotACall,   ///< inline asm, intrinsics, in-place libcalls, ASan's and
              ///< TSan's checks: cannot move the stack
  Direct,     ///< instrumented callee known at compile time: a safepoint
  Foreign,    ///< known to be foreign: runs on the system stack
  Dispatch,   ///< decided at run time from the callee's prefix
};

class Policy {
public:
  explicit Policy(llvm::Module &M);

  bool isInstrumented(const llvm::Function &F) const {
    return Instrumented.count(&F);
  }
  /// Why F is not instrumented ("" when it is, or is a declaration).
  llvm::StringRef reason(const llvm::Function &F) const;

  CallKind classify(const llvm::CallBase &CB) const;

private:
  llvm::DenseMap<const llvm::Function *, bool> Instrumented;
  llvm::DenseMap<const llvm::Function *, std::string> Reasons;

  std::string whyNot(const llvm::Function &F) const;
};

} // namespace copystack

#endif
