//===- Names.h - names the copystack passes share -------------------------===//
//
// Every name one part of the pass sets and another part (or the runtime)
// reads: the runtime's entry points (from copystack/abi.h, the contract
// with the runtime), and the function attributes, metadata kinds and module
// flag the steps of CopyStackPass leave for each other. No logic here, so
// that the steps depend on this file and not on each other.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_NAMES_H
#define COPYSTACK_PASSES_NAMES_H

#include "copystack/abi.h"

#include "llvm/ADT/StringRef.h"

namespace copystack::names {

// ---- The runtime's entry points (abi.h) -----------------------------------

/// Called at the top of every landing pad: re-establishes the stack limit
/// after an exception unwound out of a foreign call.
inline constexpr llvm::StringLiteral LandingPad = COPYSTACK_SYM_LANDING_PAD;
/// The runtime's park stub: called directly on the task stack, a safepoint
/// (a parked task's stack may be moved by shrinking).
inline constexpr llvm::StringLiteral Park = COPYSTACK_SYM_PARK;
/// The pinned area's slow paths (PinnedAllocas.h).
inline constexpr llvm::StringLiteral PinGrow = COPYSTACK_SYM_PIN_GROW;
inline constexpr llvm::StringLiteral PinRelease = COPYSTACK_SYM_PIN_RELEASE;
inline constexpr llvm::StringLiteral NoRoom = COPYSTACK_SYM_NO_ROOM;
/// What a loop poll calls to yield (LoopPolls.h): not a safepoint.
inline constexpr llvm::StringLiteral Preempt = COPYSTACK_SYM_PREEMPT;
/// The prefix of the runtime's wrappers of blocking calls (BlockingCalls.h):
/// instrumented, so calls to them are direct.
inline constexpr llvm::StringLiteral BlockingPrefix = COPYSTACK_BLOCKING_PREFIX;

// ---- Remarks ----------------------------------------------------------------

/// What -Rpass=copystack shows (the drivers' --copystack-escapes): locals
/// that moved off the stack, as Go's -gcflags=-m shows "moved to heap"; and
/// with -Rpass-missed=copystack, functions left on the thread's stack.
inline constexpr const char EscapeRemark[] = "copystack";
/// Per-function statistics (-Rpass=copystack-stats). C strings: a remark
/// keeps the pointer.
inline constexpr const char StatsRemark[] = "copystack-stats";

// ---- Between the steps of the pass -----------------------------------------

/// Module flag: the module is instrumented (-fplugin and -fpass-plugin
/// together register the pass twice).
inline constexpr llvm::StringLiteral ModuleFlag = "copystack.instrumented";
/// Named metadata: StackDepthCheckPass has warned about this module, before
/// a sanitizer's instrumentation (CopyStackPass removes it).
inline constexpr llvm::StringLiteral DepthCheckedMD = "copystack.depth_checked";
/// Function attribute users (or other tools) can set to keep a function off
/// copyable stacks: __attribute__((annotate("copystack_nosplit"))) maps to it.
inline constexpr llvm::StringLiteral NoSplitAttr = "copystack-nosplit";
/// Marks functions the pass generated (thunks, resolvers).
inline constexpr llvm::StringLiteral GeneratedAttr = "copystack-generated";
/// Generated leaves called in place on the task stack (thread-local
/// accessors for the static TLS models).
inline constexpr llvm::StringLiteral InPlaceAttr = "copystack-inplace";
/// On the shim that keeps a variadic function's signature (VarargShims.h).
inline constexpr llvm::StringLiteral VarargShimAttr = "copystack-vararg-shim";
/// On the weak stubs calls of other objects' functions go through, and the
/// prefix of their names and of the aliases that replace them at link time
/// (DispatchStubs.h).
inline constexpr llvm::StringLiteral DispatchStubAttr =
    "copystack-dispatch-stub";
inline constexpr const char DispatchPrefix[] = "__copystack_dispatch.";

/// On a call of foreign code made in place on the task stack, after a test
/// that the stack has the room it needs (LibcInPlace.h).
inline constexpr llvm::StringLiteral InPlaceCallMD = "copystack.inplace";
/// On a loop poll of a function that calls nothing else: the poll's call of
/// the preemption stub is inside the asm, so the function stays a leaf
/// (LoopPolls.h).
inline constexpr llvm::StringLiteral LeafPollMD = "copystack.leafpoll";
/// On the load of a foreign call's result: the callee returns fresh memory.
inline constexpr llvm::StringLiteral NoAliasResultMD = "copystack.noalias";
/// On pinned-area addresses and the loads of the pinned area's bounds: never
/// a stack address, so never a value that needs a slot.
inline constexpr llvm::StringLiteral PinnedMD = "copystack.pinned";
/// On the slot that holds the jmp_buf a frame last passed to setjmp.
inline constexpr llvm::StringLiteral JmpBufMD = "copystack.jmpbuf";
/// On a slot naming a va_list that no stack object describes (VaListSlots.h).
inline constexpr llvm::StringLiteral VaListRefMD = "copystack.va_list_ref";
/// On the alloca of the va_list a variadic shim starts.
inline constexpr llvm::StringLiteral ShimVaListMD = "copystack.shim.va_list";

} // namespace copystack::names

#endif
