//===- Sanitizers.h - copystack beside clang's sanitizers -----------------===//
//
// What the pass knows about the code clang's sanitizers add
// (docs/debugging.md, "Sanitizers"). CopyStackPass runs after their passes
// (registerPasses in CopyStack.cpp), so it sees their instrumentation:
//
//   - ASan's frames (one alloca holding every instrumented local, reached
//     through integers) leave the copyable stack like any escaping local:
//     memory the stack copy never moves. (The runtime turns ASan's fake
//     stacks off, whose frames could not follow a moved stack.)
//   - Their runtime calls: ASan's and TSan's run in place on the task stack
//     (the runtime gives every stack headroom for them when their runtime
//     is linked in: runtime/src/platform/sanitizers.h); UBSan's handlers,
//     which print, run on the thread's stack as foreign calls.
//   - The 8 bytes -fsanitize=function and -fsanitize=kcfi put just before a
//     function's entry: the last word of copystack's prefix (abi.h).
//   - The sanitizers copystack cannot support, and why.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_SANITIZERS_H
#define COPYSTACK_PASSES_SANITIZERS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constant.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

#include <string>

namespace copystack {

enum class SanitizerCall {
  None,    ///< not a sanitizer runtime entry point
  InPlace, ///< called on the task stack, within the sanitizer headroom
  Foreign, ///< called on the thread's stack
};

/// How instrumented code calls the sanitizer runtime function Name.
SanitizerCall classifySanitizerCall(llvm::StringRef Name);

/// Is the call one of the sanitizers' checks, which record or print the
/// addresses they receive and keep none: UBSan's report handlers
/// (__ubsan_handle_*), TSan's memory-access hooks (__tsan_read4,
/// __tsan_unaligned_write8, __tsan_atomic32_load...) and ASan's
/// (__asan_load4, __asan_report_store8...)? An address passed to one does
/// not leave the frame.
bool isSanitizerCheck(const llvm::CallBase &CB);

/// Is CB TSan's check of a plain or volatile access (__tsan_read4,
/// __tsan_unaligned_write8, __tsan_volatile_read2, __tsan_read_range...),
/// whose first argument is the address? Not its atomic operations, which
/// are the accesses themselves.
bool isTsanAccessCheck(const llvm::CallBase &CB);

/// Does the sanitizer check CB write the memory it is given? Only TSan's
/// atomic hooks, which stand for the atomic instructions they replace
/// (__tsan_atomic64_store, _exchange, _compare_exchange_strong...), except
/// its atomic loads. The others record or print the address and leave the
/// memory to the access that follows.
bool sanitizerCheckWrites(const llvm::CallBase &CB);

/// If F is one of the functions TSan and ASan call in place of memcpy,
/// memmove and memset (__tsan_memcpy, __asan_memset...), says of its
/// pointer parameters what the C library's say: neither is kept, the
/// source is only read. A local they copy or fill then stays on the
/// copyable stack, as with the C library's functions.
void describeSanitizerMemFunction(llvm::Function &F);

/// Why copystack cannot support the sanitizer clang calls Name (its
/// -fsanitize= spelling), or "" when it can.
llvm::StringRef whyUnsupportedSanitizer(llvm::StringRef Name);

/// A message naming the first unsupported sanitizer that instrumented M and
/// why, or "".
std::string unsupportedSanitizer(const llvm::Module &M);

/// The word at entry - 8 of F's prefix: -fsanitize=function's signature and
/// type hash, or -fsanitize=kcfi's type hash where x86 KCFI checks read it,
/// or filler. Takes the metadata that asked for them off F, so that the
/// backend does not emit them a second time after the prefix.
llvm::Constant *sanitizerWord(llvm::Function &F);

} // namespace copystack

#endif
