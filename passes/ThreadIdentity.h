//===- ThreadIdentity.h - what changes when a task changes threads --------===//
//
// A task may continue on another worker thread after any call that can
// park. The optimizer, which knows nothing of that, treats two things as
// constant for the whole function and merges or hoists them across calls:
//
//  - llvm.threadlocal.address(@g), the address of a thread_local variable;
//  - calls to libc functions declared const that answer "which thread am
//    I": __errno_location, pthread_self, the ctype table locators.
//
// Before the optimizer runs (ThreadIdentityPass, at the start of the
// pipeline), those functions are declared to read memory rather than to be
// constant, and thread_local addresses are taken through such a function
// (__copystack.tls.address): the optimizer then keeps them apart across any
// call that may write memory, which every call that can park does.
//
// After the optimizer has run, each such address is computed by a call to
// a per-variable accessor (lowerThreadLocalAddresses): a call the code
// generator never merges with another, as it would two computations of a
// thread_local's address. The accessor is a leaf that runs in place on the
// task stack for the static TLS models, and on the system stack for the
// dynamic ones, whose __tls_get_addr may allocate.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_THREADIDENTITY_H
#define COPYSTACK_PASSES_THREADIDENTITY_H

#include "llvm/IR/Function.h"
#include "llvm/IR/PassManager.h"

namespace copystack {

/// libc functions that return the calling thread's identity or per-thread
/// data; they are leaves and run in place (Policy.cpp).
bool isThreadIdentityLibcall(llvm::StringRef Name);

/// The early half: runs before the optimizer on the whole module.
class ThreadIdentityPass : public llvm::PassInfoMixin<ThreadIdentityPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// The late half, for a function that stays on the system stack: turns the
/// early half's __copystack.tls.address calls back into the intrinsic.
void restoreThreadLocalAddresses(llvm::Function &F);

/// The late half, for an instrumented function: thread_local addresses
/// through accessor calls. Returns how many.
unsigned lowerThreadLocalAddresses(llvm::Function &F);

/// Under TSan, for an instrumented function: drops TSan's checks of the
/// accesses whose address comes straight from the thread's identity (errno
/// through __errno_location, a thread_local by name, the ctype tables).
/// That memory is the running thread's own, and the tasks that run on a
/// thread run one at a time; switching tasks orders nothing for TSan,
/// which would take each task's errno for a race with the task before it
/// on the thread. (A pointer to such memory kept across a call that can
/// park is checked as any pointer: a task that goes on using the previous
/// thread's copy races with that thread.) Returns how many.
unsigned dropThreadOwnAccessChecks(llvm::Function &F);

} // namespace copystack

#endif
