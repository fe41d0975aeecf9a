// frames.cc (x86-64): what the growth and the walk of a moved stack need
// of the register block __morestack left (morestack.S) and of a suspended
// task's switch frame (switch.S): copy.h's walk_from_morestack,
// walk_from_switch, place_block and relocate_wide.
#include "core/copy.h"
#include "platform/cpu.h"

#include <cstring>

namespace copystack_rt {

WalkStart walk_from_morestack(MoreStackBlock *n, const Asker &asker) {
  WalkStart ws;
  ws.regs.csr[kRbx] = &n->rbx;
  ws.regs.csr[kR12] = &n->r12;
  ws.regs.csr[kR13] = &n->r13;
  ws.regs.csr[kR14] = &n->r14;
  ws.regs.csr[kR15] = &n->r15;
  ws.regs.rbp = &n->rbp;
  ws.known_lo = reinterpret_cast<uintptr_t>(n);
  if (asker.framed) {
    // A call site in the asking function: its frame is walked from the
    // block's return address like a suspended task's. Every register in
    // the block is range-checked (the function's values live across the
    // check may be anywhere); none is known to be an integer.
    ws.ra_slot = &n->ret;
    ws.first_unwritten = true;
    ws.known_hi = reinterpret_cast<uintptr_t>(&n->caller_ret);
    return ws;
  }
  ws.asker_name = asker.fn->name();
  if (!asker.args_unknown) {
    uintptr_t *args[kNumArgRegs] = {&n->rdi, &n->rsi, &n->rdx,
                                    &n->rcx, &n->r8,  &n->r9};
    for (int i = 0; i < kNumArgRegs; ++i)
      ws.regs.arg[i] = args[i];
    ws.regs.xmm = n->xmm;
    ws.asker = asker.fn->map;
  }
  // The asking function's return address, above what its prologue pushed
  // (nothing before LLVM's check; the callee-saved registers before a
  // probe, which hold its caller's values, range-checked as the block is).
  auto *ra = reinterpret_cast<uintptr_t *>(
      reinterpret_cast<uintptr_t>(&n->caller_ret) + asker.pushed);
  // Its caller's %rbp: in the block, unless the prologue pushed it (and
  // may have set up its own frame pointer). Nothing here reads the new
  // copy: the relocator copies it as its walk goes.
  if (asker.rbp_at >= 0)
    ws.regs.rbp = reinterpret_cast<uintptr_t *>(
        reinterpret_cast<uintptr_t>(&n->caller_ret) + asker.rbp_at);
  // The incoming stack arguments start above the return address; LLVM's
  // prologue put their size in %r11 (a probe's %r11 is its own).
  ws.asker_cfa = reinterpret_cast<uintptr_t>(ra) + 8;
  ws.asker_arg_bytes =
      asker.args_unknown ? asker.fn->map->stack_arg_bytes : n->r11;
  ws.ra_slot = ra;
  ws.known_hi = reinterpret_cast<uintptr_t>(ra);
  return ws;
}

WalkStart walk_from_switch(SwitchFrame *f) {
  // The function that parked (or yielded): its callee-saved registers, its
  // %rbp and its return address.
  WalkStart ws;
  ws.regs.csr[kRbx] = &f->rbx;
  ws.regs.csr[kR12] = &f->r12;
  ws.regs.csr[kR13] = &f->r13;
  ws.regs.csr[kR14] = &f->r14;
  ws.regs.csr[kR15] = &f->r15;
  ws.regs.rbp = &f->rbp;
  ws.ra_slot = &f->ret;
  ws.known_lo = reinterpret_cast<uintptr_t>(f);
  ws.known_hi = reinterpret_cast<uintptr_t>(f + 1);
  // The saved thread state is not an address, whatever its bits.
  ws.integers_lo = reinterpret_cast<uintptr_t>(&f->mxcsr);
  ws.integers_hi = reinterpret_cast<uintptr_t>(&f->r15);
  return ws;
}

// The block is on the task's stack already, below the asker's return
// address (morestack.S pushed it there).
Placed place_block(MoreStackBlock *b, const Stack &) {
  return {b, reinterpret_cast<uintptr_t>(b), 0};
}
void free_placed(const Placed &) {}

// The vector argument registers' bits above the block's xmm0-7, which
// morestack.S keeps in wide (ymm0-7 or zmm0-7, __copystack_vector_width)
// while the runtime runs: after a move, the 8-byte lanes there that point
// into the old stack move with it, when the asking function's vector
// arguments may carry pointers (its map's VECTOR_ARGS) or are not known
// (a check after the frame).
void relocate_wide(uint8_t *wide, bool all, const Stack &old,
                   const Stack &fresh) {
  const unsigned width = __copystack_vector_width;
  if (!width || !all)
    return;
  const size_t reg = width >= 2 ? 64 : 32;
  for (unsigned r = 0; r < 8; ++r)
    for (size_t lane = 2; lane < reg / 8; ++lane) {
      uint64_t v;
      memcpy(&v, wide + r * reg + lane * 8, 8);
      if (v >= old.lo && v < old.hi) {
        v += fresh.hi - old.hi;
        memcpy(wide + r * reg + lane * 8, &v, 8);
      }
    }
}


} // namespace copystack_rt
