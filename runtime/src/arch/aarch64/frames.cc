// frames.cc (AArch64): what the growth and the walk of a moved stack need
// of the register block __morestack saved (morestack.S) and of a suspended
// task's switch frame (switch.S); x86_64/frames.cc is the model.
#include "core/copy.h"
#include "platform/constants.h"
#include "platform/demangle.h"
#include "platform/fatal.h"

#include <cstdlib>
#include <cstring>

namespace copystack_rt {

WalkStart walk_from_morestack(MoreStackBlock *n, const Asker &asker) {
  // The check runs after the frame is set up: the block is a call site in
  // the asking function, walked from its return address (the check's udf)
  // like a suspended task's, every register in the block range-checked.
  (void)asker;
  WalkStart ws;
  for (int i = 0; i < kNumCsr; ++i)
    ws.regs.csr[i] = &n->csr[i];
  ws.regs.rbp = &n->fp;
  ws.known_lo = reinterpret_cast<uintptr_t>(n);
  ws.ra_slot = &n->ret;
  ws.first_unwritten = true;
  ws.known_hi = reinterpret_cast<uintptr_t>(n + 1);
  return ws;
}

WalkStart walk_from_switch(SwitchFrame *f) {
  WalkStart ws;
  for (int i = 0; i < kNumCsr; ++i)
    ws.regs.csr[i] = &f->csr[i];
  ws.regs.rbp = &f->fp;
  ws.ra_slot = &f->ret;
  ws.known_lo = reinterpret_cast<uintptr_t>(f);
  ws.known_hi = reinterpret_cast<uintptr_t>(f + 1);
  // The saved thread state and d8-d15 are not addresses, whatever their
  // bits.
  ws.integers_lo = reinterpret_cast<uintptr_t>(&f->fpcr);
  ws.integers_hi = reinterpret_cast<uintptr_t>(&f->csr[0]);
  return ws;
}

// __morestack saved the block on the thread's stack: the asker's check runs
// after its frame is set up, and its sp may lie below the task's stack
// (a frame bigger than the guard band). The block goes right below that
// sp, where the walk and morestack.S expect it: on the stack when it fits
// there (every check whose frame fits the guard band), otherwise into a
// buffer that stands for the used part of the stack, block included, from
// which the copy reads (the frame's bytes below the stack were never
// written: the prologue stores only at the frame's top, inside the guard
// band, and the function runs no code before its check).
Placed place_block(MoreStackBlock *b, const Stack &old) {
  const uintptr_t at = b->sp - sizeof(MoreStackBlock);
  if (at >= old.lo && b->sp <= old.hi) {
    memcpy(reinterpret_cast<void *>(at), b, sizeof(MoreStackBlock));
    return {reinterpret_cast<MoreStackBlock *>(at), at, 0};
  }
  if (b->sp > old.hi || b->sp < at)
    fatal("__morestack: the asking function's sp %#lx is not below its "
          "stack's top %#lx",
          (unsigned long)b->sp, (unsigned long)old.hi);
  // The code before the check (callee-saved stores, spills) writes to the
  // frame's bottom as well: below the stack's guard page it would have
  // written to memory not the task's. The pass keeps functions whose
  // locals do not fit the guard band on the thread's stack (Policy.h,
  // kUncheckedFrameLocals); a frame this big anyway is a fatal error, not
  // a guess (docs/porting.md).
  if (b->sp + kPage < old.lo)
    fatal("%s's frame on AArch64 reaches %lu bytes below the %lu-byte "
          "stack of its task at its check, past the page below the stack: "
          "the check after the frame cannot cover a frame this big yet "
          "(docs/porting.md)",
          Demangled(symbol_name(b->ret)).str(),
          (unsigned long)(old.lo - b->sp), (unsigned long)old.size());
  // The buffer holds [at, old.hi) at offsets from at: the block, then the
  // frame's part below the stack as zeros (none when the sp is on the stack
  // and only the block would reach below it), then the stack from the
  // higher of the sp and the stack's bottom.
  const size_t used = old.hi - at;
  auto *buf = static_cast<uint8_t *>(malloc(used));
  if (!buf)
    fatal("out of memory growing a stack (%zu bytes of frames)", used);
  memcpy(buf, b, sizeof(MoreStackBlock));
  const uintptr_t from = b->sp < old.lo ? old.lo : b->sp;
  const size_t below = from - b->sp;
  memset(buf + sizeof(MoreStackBlock), 0, below);
  memcpy(buf + sizeof(MoreStackBlock) + below,
         reinterpret_cast<const void *>(from), old.hi - from);
  // The copy reads the block and the frames through the buffer (copy.cc
  // move_frames); the walk then starts at the block's new place.
  return {reinterpret_cast<MoreStackBlock *>(buf), at,
          reinterpret_cast<uintptr_t>(buf)};
}

void free_placed(const Placed &p) {
  free(reinterpret_cast<void *>(p.src));
}

// q8-q31 whole (asm_offsets.h MS_WIDE_BYTES): the check may run where any
// holds a value, and nothing says whether one is an address.
void relocate_wide(uint8_t *wide, bool all, const Stack &old,
                   const Stack &fresh) {
  if (!wide || !all)
    return;
  for (size_t off = 0; off < MS_WIDE_BYTES; off += 8) {
    uint64_t v;
    memcpy(&v, wide + off, 8);
    if (v >= old.lo && v < old.hi) {
      v += fresh.hi - old.hi;
      memcpy(wide + off, &v, 8);
    }
  }
}

} // namespace copystack_rt
