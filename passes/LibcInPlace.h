//===- LibcInPlace.h - libc calls in place when there is room ------------===//
//
// Real C code calls a few library functions far more than the rest: the
// allocator (Lua: 1.26 million realloc and free calls in a short script),
// mutexes (SQLite takes one around most of its work), string scans, and in
// C++ operator new and delete and libstdc++'s red-black tree steps and
// string hash (std::map, std::unordered_map). A foreign call costs a
// dispatch stub and a switch to the thread's stack and back, about 50
// instructions, and these functions need little stack (copystack/abi.h
// lists them and what they need). So such a call becomes
//
//     if ((__copystack_libc_in_place & GROUP) &&
//         rsp - COPYSTACK_IN_PLACE_ROOM >= limit)   // unsigned
//       r = f(args);        // in place, on the task stack
//     else
//       r = f(args);        // as before: dispatched, then foreign
//
// where the runtime sets GROUP's bit at start-up only if the program's
// binding of each function of the group is glibc's (libstdc++'s) own. The
// tree and hash leaves use no stack and skip the room test. operator new
// runs in place as malloc(n ? n : 1), and as the call itself when that is
// null; operator delete as free. An invoke keeps its landing pad on the
// call's path. A call in place cannot move the stack (nothing instrumented
// runs inside it) and is no safepoint. pthread_mutex_lock becomes
// pthread_mutex_trylock in place, and the foreign pthread_mutex_lock only
// when that finds the mutex held: a task never blocks its worker where the
// monitor cannot see it.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_LIBCINPLACE_H
#define COPYSTACK_PASSES_LIBCINPLACE_H

#include "Policy.h"

#include "llvm/IR/Function.h"

namespace copystack {

/// Adds the in-place path to F's calls of those functions. Returns how many.
unsigned callLibcInPlace(llvm::Function &F, const Policy &P);

} // namespace copystack

#endif
