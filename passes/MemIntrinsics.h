//===- MemIntrinsics.h - -O0 memory intrinsics as calls -----------------===//
//
// FastISel (-O0) lowers memcpy, memmove and memset intrinsics to calls
// through the PLT, ignoring RtLibUseGOT. In functions it compiles, make
// them plain calls to the libc functions, which bindEagerly() then binds at
// load time. Small constant sizes stay intrinsics: FastISel inlines those
// of memcpy and memmove (and calls memset through the PLT, which the
// drivers' -z now binds at load time too).
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_MEMINTRINSICS_H
#define COPYSTACK_PASSES_MEMINTRINSICS_H

#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"

namespace copystack {

/// In an optnone function: large or variable-size mem intrinsics become calls.
void memIntrinsicsToCalls(llvm::Function &F);

/// Zeroes Len bytes at Dest where B inserts: a memset intrinsic; in an
/// optnone function, stores (small sizes) or a call to memset; in a module
/// that defines memset, stores or a loop of them (B may be left in another
/// block, before the same instruction).
void zeroMemory(llvm::IRBuilder<> &B, llvm::Value *Dest, uint64_t Len,
                llvm::Align A);

} // namespace copystack

#endif
