//===- BlockingCalls.h - blocking C library calls park the task -----------===//
//
// A task that calls read() on a socket would hold its worker thread until
// data arrives. Instead, calls from instrumented code to the C library's
// blocking calls (abi.h's COPYSTACK_BLOCKING_CALLS: read, write, recv, send,
// accept, connect, poll, select, the sleeps and their kin) go to the
// runtime's wrappers of the same signature, __copystack_blocking_<name>:
//
//     %n = call i64 @read(i32 %fd, ptr %buf, i64 64)
//
// becomes
//
//     %n = call i64 @__copystack_blocking_read(i32 %fd, ptr %buf, i64 64)
//
// The wrappers are instrumented (runtime/src/sched/io_calls.c): they make
// the call without blocking through a foreign call, and when it would block
// they park the task from its own stack, which code on the thread's stack
// (where a foreign call, or an interposed read, runs) cannot do. Code built
// without the plugin, and calls through pointers, still call the C library
// and block their thread as before; so does a call made outside any task
// (the wrapper makes the plain call then).
//
// pthread_exit goes through a wrapper too, not instrumented
// (runtime/src/sched/thread_tasks.cc): under ThreadSanitizer a task that
// ends its thread must first give TSan back the thread's own context.
//
// It runs on the module, before escape analysis: the wrappers' declarations
// carry the C library declarations' attributes (a buffer passed to read
// stays nocapture, and so on the stack).
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_BLOCKINGCALLS_H
#define COPYSTACK_PASSES_BLOCKINGCALLS_H

#include "Policy.h"

#include "llvm/IR/Module.h"

namespace copystack {

/// Redirects the blocking calls of the instrumented functions of M to the
/// runtime's wrappers. Returns how many calls.
unsigned redirectBlockingCalls(llvm::Module &M, const Policy &P);

} // namespace copystack

#endif
