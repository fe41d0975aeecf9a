//===- ForeignCalls.h - run foreign code on the system stack -------------===//
//
// Code built without the plugin (libc, libstdc++, other libraries) has no
// prologue checks and no maps, and printf alone wants far more than the
// 928-byte guard. Like Go's cgo calls, it never runs on a copyable stack:
//
//     %r = call T @printf(ptr %fmt, i32 %x)
//
// becomes a store of the arguments into a frame on the task stack and a call
// to the runtime trampoline, which switches to the worker's system stack and
// calls a thunk generated here to make the real call from there:
//
//     store ptr %fmt, ... ; store i32 %x, ...
//     call void @__copystack_foreign_call(ptr @__copystack.thunk.N, ptr %frame)
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

struct ForeignCallStats {
  unsigned Foreign = 0;
  unsigned Dispatched = 0;
};

/// Rewrites the calls of instrumented function F. Returns true if changed.
bool rewriteForeignCalls(llvm::Function &F, const Policy &P, ThunkCache &TC,
                         ForeignCallStats &Stats);

} // namespace copystack

#endif
