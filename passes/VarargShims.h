//===- VarargShims.h - variadic functions on copyable stacks -------------===//
//
// LLVM refuses split-stack prologues for variadic functions (gcc's
// __morestack protocol cannot copy their register save area). copystack
// protects them another way. A variadic function
//
//     T f(A a, ...) { body }
//
// becomes a shim that keeps the variadic signature and does nothing but
// va_start, and a non-variadic function with the body, instrumented like
// any other:
//
//     T f(A a, ...) { va_list ap; va_start(ap, a); T r = f.copystack.va(a, &ap);
//                     va_end(ap); return r; }
//     T f.copystack.va(A a, va_list *va) { body, with va_start(x) turned
//                                           into va_copy(x, *va) }
//
// The shim has no prologue check: its frame (the va_list and the 176-byte
// register save area) fits in the guard band's budget, and the body's check
// runs right after. It has a frame map like any instrumented function: the
// va_list is marked COPYSTACK_OBJF_REG_SAVE_AREA, so the runtime relocates
// the register save area it points to (which may hold pointer arguments),
// and callers describe the variadic arguments they pass on the stack
// (COPYSTACK_OBJF_OUTGOING). A live va_list anywhere is an ordinary object
// whose pointers the maps describe.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_VARARGSHIMS_H
#define COPYSTACK_PASSES_VARARGSHIMS_H

#include "llvm/IR/Module.h"

namespace copystack {

/// Splits every variadic function it can into a shim and a body. Returns
/// the number split.
unsigned splitVariadicFunctions(llvm::Module &M);

/// Whether splitVariadicFunctions splits F: whether F's body ends up in an
/// instrumented function although F itself is variadic.
bool isSplittableVariadic(llvm::Function &F);

} // namespace copystack

#endif
