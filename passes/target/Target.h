//===- Target.h - what the pass emits that depends on the target ---------===//
//
// Every piece of machine code the pass writes into a module (inline asm:
// the own prologue's check, the room test of a libc call in place, the
// loop polls) and every way it reaches the runtime's per-thread state from
// IR is built by a Target, one per architecture in this folder, chosen by
// the module's triple. The rest of the pass is IR and does not know the
// instruction set. What is still x86-64's outside this folder: the
// argument layout at growth (ArgLayout.cpp, the System V classification),
// the va_list layout (VaListSlots.cpp, VarargShims.cpp), the foreign-call
// target register ('nest', %r10: ForeignCalls.cpp, Policy.cpp) and the
// frame maps' %rbp-relative offsets (FrameMaps.cpp); docs/porting.md lists
// them with the runtime's.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_TARGET_TARGET_H
#define COPYSTACK_PASSES_TARGET_TARGET_H

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"

#include <cstdint>

namespace copystack {

class Target {
public:
  virtual ~Target() = default;

  /// The target of M. unsupportedModule (TargetCheck.h) has refused every
  /// other triple before any pass runs.
  static const Target &of(const llvm::Module &M);

  /// The own prologue's check (copystack/abi.h, COPYSTACK_OWN_CHECK): the
  /// compare of the stack pointer with the thread's limit, and the call of
  /// __morestack when it fails, in one asm placed at F's entry; StackArgBytes
  /// are the bytes of F's arguments on the stack (ArgLayout.h).
  virtual llvm::InlineAsm *ownCheck(llvm::Function &F,
                                    uint64_t StackArgBytes) const = 0;

  /// An asm goto that jumps to its one label when the stack has
  /// COPYSTACK_IN_PLACE_ROOM bytes below the stack pointer, and otherwise
  /// tells the runtime (COPYSTACK_SYM_NO_ROOM) and falls through.
  virtual llvm::InlineAsm *inPlaceRoomTest(llvm::LLVMContext &C) const = 0;

  /// The poll of a function that calls nothing else: the test of the
  /// limit word for COPYSTACK_PREEMPT_LIMIT and the call of the preemption
  /// stub inside the asm, so that the function stays a leaf.
  virtual llvm::InlineAsm *leafPoll(llvm::LLVMContext &C) const = 0;

  /// A loop's poll as an asm goto: jumps to its label when a preemption is
  /// requested (the limit word is COPYSTACK_PREEMPT_LIMIT).
  virtual llvm::InlineAsm *pollBranch(llvm::LLVMContext &C) const = 0;

  /// The calling thread's __copystack_thread. On x86-64 each access
  /// through the pointer is relative to the thread that makes it (a task
  /// that moved to another thread between two accesses reaches the new
  /// one's); elsewhere it is the thread's address when it was taken, good
  /// until the task can next move to another thread (a park: a preempted
  /// task resumes on its own thread, docs/design.md).
  virtual llvm::Value *threadBlock(llvm::IRBuilder<> &B) const = 0;

  /// The runtime's foreign-call trampoline (abi.h), which takes its target
  /// in the register of LLVM's `nest` argument: %r10, or x18 on AArch64.
  virtual llvm::StringRef foreignCallSymbol() const = 0;

  /// Whether LLVM's split-stack prologue exists for the target (x86-64:
  /// --copystack-prologue=llvm, and the functions whose only calls the
  /// backend may or may not make). Where it does not, those get the own
  /// check.
  virtual bool hasLlvmSplitStack() const = 0;

  /// Whether LLVM's stack probe calls the runtime for frames of
  /// COPYSTACK_PROBE_FRAME bytes and more (x86-64: "probe-stack" naming
  /// COPYSTACK_SYM_STACK_PROBE). Where it does not, the own check runs
  /// after the frame is set up and compares the stack pointer below it:
  /// a leaf whose locals may not fit the guard band's budget gets it too,
  /// and no check is left out for its callees' (placeOwnChecks).
  virtual bool probesLargeFrames() const = 0;

  /// Where the own check runs after the frame is set up: the asm
  /// constraint of the register class an argument value of type T passes
  /// through the check in, or null when the target's check carries no
  /// value of that type (insertOwnCheck, Attributes.cpp).
  virtual const char *checkCarries(llvm::Type *T) const { return nullptr; }

  /// How many values of one register class the check carries at most: the
  /// others stay where the backend puts them.
  virtual unsigned checkCarriesAtMost() const { return 0; }

  /// The Linux system call number of futex(2), which syscall() calls
  /// inline in the program are redirected by (BlockingCalls.cpp).
  virtual uint64_t futexSyscall() const = 0;
};

/// Whether the pass and the clang plugin accept AArch64 Linux modules
/// (-copystack-experimental-aarch64, which the drivers pass with
/// --target=aarch64-linux-gnu): the port in progress, whose runtime is
/// runtime/src/arch/aarch64/ (docs/porting.md).
bool experimentalAArch64();

} // namespace copystack

#endif
