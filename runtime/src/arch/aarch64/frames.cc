// frames.cc (AArch64): what the growth and the walk of a moved stack need
// of the register block __morestack saved (morestack.S) and of a suspended
// task's switch frame (switch.S); x86_64/frames.cc is the model.
#include "core/copy.h"
#include "core/frame_info.h"
#include "prologue.h"
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

namespace {

// The asking function's code from its entry to its check (the four
// instructions before the bl of its return address), decoded: a store
// below the stack is memory not the task's written (a neighbour's stack:
// pooled stacks have no inaccessible page between them), a fatal error
// that names the function; code the decoder does not model is fatal too
// (docs/porting.md, "The check runs after the frame is set up").
void check_stores_before_check(const MoreStackBlock *b, const Stack &old) {
  // The function's name only for a fatal error (a growth that goes on
  // looks nothing up).
  auto name = [b] { return Demangled(symbol_name(b->ret)); };
  const unsigned long below = old.lo - b->sp;
  const unsigned long size = old.size();
  const char *why = "unknown";
  const FrameInfo *fi = frame_info_for_function(b->ret, &why);
  if (!fi)
    fatal("%s's frame on AArch64 reaches %lu bytes below the %lu-byte stack "
          "of its task at its check, and its code cannot be read: %s",
          name().str(), below, size, why);
  const uintptr_t check = b->ret - 4 - a64::kCheckInsns * 4;
  if (fi->entry > check ||
      !a64::is_own_check(reinterpret_cast<const uint32_t *>(check)))
    fatal("%s's frame on AArch64 reaches %lu bytes below the %lu-byte stack "
          "of its task at its check, and the instructions before its call "
          "of __morestack (%#lx) are not the own check's",
          name().str(), below, size, (unsigned long)(b->ret - 4));
  const a64::PrologueStores ps = a64::scan_prologue(
      reinterpret_cast<const uint32_t *>(fi->entry), (check - fi->entry) / 4);
  if (!ps.known)
    fatal("%s's frame on AArch64 reaches %lu bytes below the %lu-byte stack "
          "of its task at its check, and what the function ran before its "
          "check is not known (%s, at +%#lx from its entry): the check "
          "after the frame covers so big a frame only when nothing was "
          "stored below the stack (docs/porting.md)",
          name().str(), below, size, ps.why,
          (unsigned long)(ps.stopped_at * 4));
  if (ps.sp_at_end > 0)
    fatal("%s's code before its check on AArch64 raised its stack pointer "
          "%ld bytes above its entry's: not a frame's set-up",
          name().str(), (long)ps.sp_at_end);
  // The entry's stack pointer, from the check's.
  const uintptr_t entry_sp = b->sp - static_cast<uintptr_t>(ps.sp_at_end);
  const uintptr_t lowest = entry_sp + static_cast<uintptr_t>(ps.lowest);
  if (ps.stored && lowest < old.lo)
    fatal("%s stored to %lu bytes below its task's %lu-byte stack before "
          "its check on AArch64 (its frame reaches %lu bytes below): memory "
          "not the task's was written. Its frame is bigger than the check "
          "after the frame covers (docs/porting.md)",
          name().str(), (unsigned long)(old.lo - lowest), size, below);
}

} // namespace

// __morestack saved the block on the thread's stack: the asker's check runs
// after its frame is set up, and its sp may lie below the task's stack
// (a frame bigger than the guard band). The block goes right below that
// sp, where the walk and morestack.S expect it: on the stack when it fits
// there (every check whose frame fits the guard band), otherwise into a
// buffer that stands for the used part of the stack, block included, from
// which the copy reads (the frame's bytes below the stack were never
// written: the prologue stores only at the frame's top, inside the guard
// band, which check_stores_before_check proves of every frame that
// reaches below the stack).
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
  // The frame reaches below the stack: what the function ran before its
  // check must not have stored there (the memory is not the task's). Its
  // instructions say (prologue.h); code they do not model is a fatal
  // error, not a guess.
  if (b->sp < old.lo)
    check_stores_before_check(b, old);
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
