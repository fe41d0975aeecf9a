// copy.cc: moving a task's stack (copy.h).
#include "platform/split_stack_notes.h"
#include "platform/demangle.h"
#include "core/copy.h"
#include "core/shrink.h"
#include "core/stack_alloc.h"
#include "core/verify.h"
#include "platform/config.h"
#include "platform/constants.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "platform/valgrind.h"
#include "platform/stats.h"
#include "sched/trace.h"
#include "platform/thread.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace copystack_rt {

namespace {

std::atomic<uint64_t> g_compacted_bytes{0};
std::atomic<uint64_t> g_compacted_tasks{0};

// What every copy shares: the used bytes, at src (the old stack, or a
// compacted task's block, whose top stands for old.hi), go to the top of
// fresh and are relocated from the block (kind) at their new place; the
// task then runs on fresh. Returns where the block is now.
uintptr_t move_frames(Task *t, const Stack &old, uintptr_t src, size_t used,
                      const Stack &fresh, Block kind, const Asker *asker) {
  const Config &cfg = config();
  CS_CHECK(((fresh.hi - old.hi) & (kMoveAlign - 1)) == 0,
           "a stack moves by a multiple of 64 KiB");
  const uintptr_t block = fresh.hi - used;
  // Verify mode keeps dead stack free of stale values: the rest of the
  // block's page (which the copy touches anyway) gets poison; below it a
  // verify-mode stack is the kernel's zero pages, or poison when the reuse
  // ring handed it out (stack_alloc.cc), never a pointer either, left
  // untouched until frames reach them: poisoning the
  // whole fresh stack at every move faulted in every page of it, which in
  // stress mode (a move per call) was most of the time spent.
  if (cfg.verify) {
    uintptr_t clean_lo = block & ~(kPage - 1);
    if (clean_lo < fresh.lo)
      clean_lo = fresh.lo;
    san::fill_unseen(reinterpret_cast<void *>(clean_lo), kPoison,
                     block - clean_lo);
  }

  Relocator rel(old, fresh, process_frames(),
                reinterpret_cast<uintptr_t>(__copystack_task_return),
                src + used);
  if (cfg.verify_scan)
    rel.enable_verify(block);
  vg::KeepDefinedness definedness(src, used);
  rel.copy(block, src, used);
  if (kind == Block::kMoreStack) {
    CS_CHECK(asker && asker->fn, "a growth names the function that asked");
    rel.run(walk_from_morestack(reinterpret_cast<MoreStackBlock *>(block),
                                *asker));
  } else {
    rel.run(walk_from_switch(reinterpret_cast<SwitchFrame *>(block)));
  }
  definedness.restore(block);
  if (cfg.verify_scan)
    if (unsigned n = rel.report_unrelocated())
      report("verify: %u suspicious word(s) after moving the stack of task "
             "%lu (%s)",
             n, (unsigned long)t->id,
             Demangled(asker ? asker->fn->name() : "suspended").str());

  t->stack = fresh;
  t->copies++;
  // Nothing below the frames has been written on the new stack (growth.cc
  // scrub()).
  t->scrub_low = block;
  Stats &st = stats();
  st.bytes_copied += used;
  st.pointers_adjusted += rel.adjusted();
  return block;
}

} // namespace

Copy copy_stack(Task *t, size_t new_size, uintptr_t block, Block kind,
                const Asker *asker, bool to_pool, uintptr_t src) {
  const Stack old = t->stack;
  Copy c;
  const uint64_t t0 = now_ns();
  // At old.hi modulo kMoveAlign: the move keeps the low 16 bits of every
  // word it rewrites (core/stack_alloc.h).
  const Stack fresh = allocate_stack(new_size, old.hi);
  c.used = old.hi - block;
  // A growth whose asker's frame reaches below the stack (AArch64's check
  // after the frame, arch/aarch64/frames.cc place_block): the words moved
  // from there are the stack's too, and so is any address of them (a
  // register may hold one the asker computed before its check).
  Stack from = old;
  if (block < from.lo)
    from.lo = block;
  c.block =
      move_frames(t, from, src ? src : block, c.used, fresh, kind, asker);
  release_stack(old, to_pool);
  c.ns = now_ns() - t0;
  stats().copy_ns += c.ns;
  return c;
}

void compact_suspended(Task *t, bool to_pool) {
  CS_CHECK(!t->compacted, "a compacted task is not compacted again");
  const Stack old = t->stack;
  const size_t used = old.hi - t->sp;
  auto *header = static_cast<uint64_t *>(malloc(sizeof(uint64_t) + used));
  if (!header)
    fatal("out of memory compacting a parked task's %zu bytes of frames",
          used);
  header[0] = used;
  san::copy_unseen(header + 1, reinterpret_cast<const void *>(t->sp), used);
  t->sp = reinterpret_cast<uintptr_t>(header + 1);
  t->compacted = 1;
  release_stack(old, to_pool);
  g_compacted_bytes += used;
  g_compacted_tasks += 1;
  Stats &st = stats();
  st.compactions++;
  trace::stack(t->id, trace::kCompact, old.size(), used, used);
  if (config().trace)
    report("task %lu compact: %zu -> %zu bytes", (unsigned long)t->id,
           old.size(), used);
}

Copy expand_compacted(Task *t) {
  CS_CHECK(t->compacted, "only a compacted task is expanded");
  const Stack old = t->stack; // the range its words still name
  Copy c;
  const uint64_t t0 = now_ns();
  c.used = compacted_used(t);
  // The size its frames, the guard and the shrink slack fit in: a
  // collection found it idle, as a shrink would have (core/shrink.h).
  size_t size = round_stack_size(c.used + COPYSTACK_GUARD + kShrinkSlack);
  if (size > old.size())
    size = old.size();
  const Stack fresh = allocate_stack(size, old.hi);
  c.block = move_frames(t, old, t->sp, c.used, fresh, Block::kSwitch, nullptr);
  free(reinterpret_cast<uint64_t *>(t->sp) - 1);
  t->sp = c.block;
  t->compacted = 0;
  g_compacted_bytes -= c.used;
  g_compacted_tasks -= 1;
  c.ns = now_ns() - t0;
  Stats &st = stats();
  st.copy_ns += c.ns;
  st.expansions++;
  st.expand_ns += c.ns;
  trace::stack(t->id, trace::kExpand, c.used, fresh.size(), c.used);
  if (config().trace)
    report("task %lu expand: %zu -> %zu bytes, %lu ns", (unsigned long)t->id,
           c.used, fresh.size(), (unsigned long)c.ns);
  return c;
}

uint64_t compacted_bytes() { return g_compacted_bytes.load(); }
uint64_t compacted_tasks() { return g_compacted_tasks.load(); }

} // namespace copystack_rt
