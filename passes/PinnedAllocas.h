//===- PinnedAllocas.h - locals that live off the copyable stack ---------===//
//
// Moves to the pinned area (runtime/include/copystack/abi.h):
//   - the static allocas EscapeAnalysis found escaping, and the byval
//     arguments it found escaping (copied into the block at entry; the
//     function then uses the copy);
//   - allocas aligned beyond 16 bytes, which would make LLVM realign the
//     frame (locals then sit at no fixed %rbp offset);
//   - dynamic allocas (alloca(n), variable-length arrays).
// One block for the static ones, allocated inline at entry, or lower down
// in the block that dominates their uses when that is in no loop (a local
// needed only on a slow path costs nothing elsewhere); one allocation per
// dynamic alloca where it stood, given back at the stackrestore that
// ends its scope. The function gives back what it took at every return and
// resume; landing pads and the second return of setjmp put the pinned top
// back to the function's own, releasing whatever the frames that unwound or
// were jumped over had taken.
//
//===----------------------------------------------------------------------===//
#ifndef COPYSTACK_PASSES_PINNEDALLOCAS_H
#define COPYSTACK_PASSES_PINNEDALLOCAS_H

#include "llvm/ADT/MapVector.h"
#include "llvm/IR/Instructions.h"

#include <functional>
#include <string>

namespace copystack {

struct PinStats {
  unsigned Static = 0;
  unsigned Dynamic = 0;
};

/// A static local (or byval copy) now in the pinned block: its type, and
/// its address there.
struct PinnedObject {
  llvm::Type *Type;
  llvm::Value *Address;
};

/// Reports one moved local: the alloca (before it goes) or byval argument,
/// and why it moved.
using PinRemark = std::function<void(llvm::Value *, llvm::StringRef)>;

/// Whether F's dynamic allocas can be handled: every stackrestore must
/// restore a stacksave's result directly. Sets Why when not.
bool canPinDynamicAllocas(const llvm::Function &F, std::string &Why);

bool pinAllocas(llvm::Function &F,
                const llvm::MapVector<llvm::Value *, std::string> &Escaping,
                PinStats &Stats, const PinRemark &Remark,
                llvm::SmallVectorImpl<PinnedObject> &Pinned);

} // namespace copystack

#endif
