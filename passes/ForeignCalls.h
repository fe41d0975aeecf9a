//===- ForeignCalls.h - run foreign code on the system stack -------------===//
//
// Code built without the plugin (libc, libstdc++, other libraries) has no
// prologue checks and no maps, and printf alone wants far more than the
// 928-byte guard. Like Go's cgo calls, it never runs on a copyable stack:
//
//     %r = call T @printf(ptr %fmt, i32 %x)
//
// becomes a call of the runtime trampoline with the callee's own signature
// and the target as a first `nest` argument, which LLVM passes in %r10. The
// trampoline switches to the worker's system stack and calls %r10 with
// every argument register as it found them, and returns the result
// registers unchanged (switch.S):
//
//     %r = call i32 (ptr, ptr, i32) @__copystack_foreign_call_r10(
//              ptr nest @printf, ptr %fmt, i32 %x)
//
// A call that passes anything in memory (stack arguments: byval, x86_fp80,
// a seventh integer argument) or returns it anywhere but %rax, %rdx, %xmm0
// and %xmm1 (x86_fp80 in %st0), or has operand bundles (kcfi), stores its
// arguments into a frame on the task stack instead and has a thunk generated
// here make the real call from the system stack:
//
//     store ptr %fmt, ... ; store x86_fp80 %x, ...
//     call void (ptr, ptr) @__copystack_foreign_call_r10(
//              ptr nest @__copystack.thunk.N, ptr %frame)
//     %r = load T, ...
//
// Calls whose target is only known at run time (declarations that another
// instrumented object may define, indirect calls, linkonce definitions the
// linker may take from an uninstrumented object) test the callee's prefix:
// instrumented code carries COPYSTACK_MAGIC COPYSTACK_MAGIC_OFFSET bytes
// before its entry (abi.h).
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_FOREIGNCALLS_H
#define COPYSTACK_PASSES_FOREIGNCALLS_H

#include "Policy.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"

#include <tuple>

namespace copystack {

/// One thunk per (callee, type, argument types, attributes, calling
/// convention, -fsanitize=kcfi type) and module. The argument types matter
/// for variadic callees: every call to printf has the type i32 (ptr, ...).
/// The thunk's call keeps the original's kcfi bundle: an indirect call that
/// goes through the thread's stack is checked like one that does not.
class ThunkCache {
public:
  explicit ThunkCache(llvm::Module &M) : M(M) {}
  /// The thunk for CB; Callee null for indirect calls (the frame then
  /// carries the callee in its first field).
  llvm::Function *get(llvm::CallBase &CB, llvm::Function *Callee,
                      llvm::StructType *FrameTy);

private:
  llvm::Module &M;
  using Key = std::tuple<llvm::Function *, llvm::FunctionType *,
                         llvm::StructType *, void *, unsigned, llvm::Value *>;
  llvm::DenseMap<Key, llvm::Function *> Thunks;
  unsigned Next = 0;
};

/// Whether CB can go through the trampoline as it stands: a C call whose
/// arguments are all in registers and whose result comes back in %rax,
/// %rdx, %xmm0 and %xmm1 only.
bool passesInRegisters(const llvm::CallBase &CB);

/// A call (or, with Normal, an invoke) of Target(Args), FT's signature with
/// Attrs' argument and result attributes, through the trampoline.
llvm::CallBase *createForeignCall(llvm::IRBuilderBase &B,
                                  llvm::FunctionType *FT, llvm::Value *Target,
                                  llvm::ArrayRef<llvm::Value *> Args,
                                  llvm::AttributeList Attrs,
                                  llvm::BasicBlock *Normal = nullptr,
                                  llvm::BasicBlock *Unwind = nullptr);

struct ForeignCallStats {
  unsigned Foreign = 0;
  unsigned Dispatched = 0;
};

/// Rewrites the calls of instrumented function F. Returns true if changed.
bool rewriteForeignCalls(llvm::Function &F, const Policy &P, ThunkCache &TC,
                         ForeignCallStats &Stats);

} // namespace copystack

#endif
