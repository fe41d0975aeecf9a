// copy.cc: moving a task's stack (copy.h).
#include "platform/split_stack_notes.h"
#include "platform/demangle.h"
#include "core/copy.h"
#include "core/stack_alloc.h"
#include "core/verify.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "platform/stats.h"
#include "platform/thread.h"

#include <cstring>

namespace copystack_rt {

WalkStart walk_from_morestack(MoreStackBlock *n, const FrameInfo &asker) {
  WalkStart ws;
  uintptr_t *args[kNumArgRegs] = {&n->rdi, &n->rsi, &n->rdx,
                                  &n->rcx, &n->r8,  &n->r9};
  for (int i = 0; i < kNumArgRegs; ++i)
    ws.regs.arg[i] = args[i];
  ws.regs.csr[kRbx] = &n->rbx;
  ws.regs.csr[kR12] = &n->r12;
  ws.regs.csr[kR13] = &n->r13;
  ws.regs.csr[kR14] = &n->r14;
  ws.regs.csr[kR15] = &n->r15;
  ws.regs.rbp = &n->rbp;
  ws.regs.xmm = n->xmm;
  ws.asker = asker.map;
  ws.asker_name = asker.name();
  // The asking function's incoming stack arguments start above its return
  // address; LLVM's prologue put their size in %r11.
  ws.asker_cfa = reinterpret_cast<uintptr_t>(&n->caller_ret) + 8;
  ws.asker_arg_bytes = n->r11;
  ws.ra_slot = &n->caller_ret;
  ws.known_lo = reinterpret_cast<uintptr_t>(n);
  ws.known_hi = reinterpret_cast<uintptr_t>(&n->caller_ret);
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
  return ws;
}

Copy copy_stack(Task *t, size_t new_size, uintptr_t block, Block kind,
                const FrameInfo *asker, bool to_pool) {
  const Config &cfg = config();
  const Stack old = t->stack;
  Copy c;
  const uint64_t t0 = now_ns();
  // At old.hi modulo kMoveAlign: the move keeps the low 16 bits of every
  // word it rewrites (core/stack_alloc.h).
  const Stack fresh = allocate_stack(new_size, old.hi);
  CS_CHECK(((fresh.hi - old.hi) & (kMoveAlign - 1)) == 0,
           "a stack moves by a multiple of 64 KiB");
  c.used = old.hi - block;
  c.block = fresh.hi - c.used;
  if (cfg.verify)
    san::fill_unseen(reinterpret_cast<void *>(fresh.lo), kPoison,
                     c.block - fresh.lo);

  Relocator rel(old, fresh, process_frames(),
                reinterpret_cast<uintptr_t>(__copystack_task_return));
  if (cfg.verify_scan)
    rel.enable_verify(c.block);
  rel.copy(c.block, block, c.used);
  if (kind == Block::kMoreStack) {
    CS_CHECK(asker, "a growth names the function that asked");
    rel.run(walk_from_morestack(
        reinterpret_cast<MoreStackBlock *>(c.block), *asker));
  } else {
    rel.run(walk_from_switch(reinterpret_cast<SwitchFrame *>(c.block)));
  }
  if (cfg.verify_scan)
    if (unsigned n = rel.report_unrelocated())
      report("verify: %u suspicious word(s) after moving the stack of task "
             "%lu (%s)",
             n, (unsigned long)t->id,
             Demangled(asker ? asker->name() : "suspended").str());

  t->stack = fresh;
  t->copies++;
  t->scrub_low = fresh.lo;
  release_stack(old, to_pool);

  c.ns = now_ns() - t0;
  Stats &st = stats();
  st.bytes_copied += c.used;
  st.copy_ns += c.ns;
  st.pointers_adjusted += rel.adjusted();
  return c;
}

} // namespace copystack_rt
