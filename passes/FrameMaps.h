//===- FrameMaps.h - the per-function frame map and magic prefix ---------===//
//
// Emits, for an instrumented function F (after every step that adds a
// local to it):
//
//   - llvm.localescape of every static alloca, so each has an offset from
//     %rbp that the assembler knows as a constant;
//   - F.copystack.resolve, which returns those offsets through
//     llvm.localrecover(@F, null, i): constants, no relocations;
//   - F.copystack.map, a copystack_frame_map (runtime/include/copystack/
//     abi.h) listing every stack object with its pointer-word bitmap, the
//     incoming arguments that are pointers, and the argument-area size;
//   - the 24-byte prefix before F's entry: map offset, ABI version, magic,
//     and the sanitizers' word (Sanitizers.h).
//
// The map is per function, not per call site: a slot that holds a dead
// value is still rewritten if it points into the old stack, which is
// harmless, and it keeps return addresses out of the tables.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_FRAMEMAPS_H
#define COPYSTACK_PASSES_FRAMEMAPS_H

#include "llvm/IR/Function.h"

namespace copystack {

struct FrameMapStats {
  unsigned Objects = 0;
  /// Locals described at offsets from %rbp (llvm.localescape): the
  /// function keeps a frame pointer (Attributes.h setAttributes).
  unsigned Locals = 0;
  unsigned PointerWords = 0;
  unsigned ConservativeObjects = 0;
};

void emitFrameMap(llvm::Function &F, FrameMapStats &Stats);

} // namespace copystack

#endif
