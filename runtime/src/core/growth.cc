// growth.cc: what __morestack does, on the thread's own stack (Go's
// newstack).
//
// morestack.S saves every register the asking function may need in a block
// on the task stack (copy.h, MoreStackBlock), switches to the thread's stack
// and calls __copystack_grow with the block:
//
//   1. New size: double, and keep doubling until the frames live, the frame
//      that asked and the guard fit. Above the maximum: a fatal message
//      naming the limit and the function.
//   2. copy_stack (copy.h): the used part, block included, to the top of
//      the new stack, relocated, installed; the old stack released.
//   3. Install the new limit, and return the block's new address;
//      morestack.S restores the registers there and resumes the function at
//      its return address + 1, past LLVM's "ret". When the check failed
//      because the monitor asked the task to yield (the limit was
//      COPYSTACK_PREEMPT_LIMIT, sched/preempt.h), bit 0 of the address says
//      so, and morestack.S parks the task before it resumes.
//
// In stress mode every check lands here and the stack moves even when the
// frame fits (Go's stackForceMove). In verify mode every check lands here
// too: checks whose frame fits only scrub the dead part of the stack, so
// that any old-stack address found after a copy was written by a live
// frame, not left behind by a returned one.
#include "platform/split_stack_notes.h"
#include "platform/config.h"
#include "platform/cpu.h"
#include "platform/demangle.h"
#include "platform/fatal.h"
#include "core/frame_info.h"
#include "core/copy.h"
#include "core/verify.h"
#include "platform/sanitizers.h"
#include "platform/stats.h"
#include "sched/profile.h"
#include "sched/trace.h"
#include "sched/task.h"
#include "platform/thread.h"

#include "copystack/abi.h"

#include <cstdio>
#include <cstring>

namespace copystack_rt {

namespace {

// LLVM compares only %rsp, not %rsp - FRAME, for frames below this size
// (kSplitStackAvailable in X86FrameLowering.cpp).
constexpr size_t kSmallFrame = 256;

void scrub(Task *t, uintptr_t below, size_t frame) {
  uintptr_t lo = t->scrub_low < t->stack.lo ? t->stack.lo : t->scrub_low;
  if (lo < below)
    memset(reinterpret_cast<void *>(lo), kPoison, below - lo);
  uintptr_t next = below - frame - COPYSTACK_GUARD;
  t->scrub_low = next < t->stack.lo || next > below ? t->stack.lo : next;
}

// The size a stack of size bytes moves to when need bytes (frames live,
// the asking frame, room asked for) must fit above the guard: the same
// when they fit (a stress-mode move), else doubled until they do.
size_t next_size(size_t size, size_t need, bool fits) {
  if (!fits)
    size *= 2;
  while (size <= need + COPYSTACK_GUARD)
    size *= 2;
  return size;
}

// Go's "goroutine stack exceeds limit". The task dump starts at the
// asking function, stopped in its prologue's call of __morestack (its
// %rsp after that call returns is the address of the block's caller_ret,
// its %rbp the block's).
[[noreturn]] void over_limit(Task *t, const MoreStackBlock *blk, size_t want,
                             size_t max, const char *fn, size_t frame,
                             size_t live) {
  char a[32], b[32], name[512];
  fatal_at({block_pc(blk), block_sp(blk), block_fp(blk), 0},
           "stack of task %lu would grow to %s, over the maximum stack size "
           "of %s, when %s asked for a %zu-byte frame with %zu bytes of "
           "frames live (copystack_set_max_stack() or COPYSTACK_MAX_STACK "
           "raise the limit)",
           (unsigned long)t->id, human_bytes(want, a, sizeof a),
           human_bytes(max, b, sizeof b), demangle(fn, name, sizeof name), frame,
           live);
}

} // namespace

} // namespace copystack_rt

using namespace copystack_rt;

namespace {

// What asked for the growth (abi.h, "The stack limit and the prologue").
enum class Check {
  kLlvm,  // LLVM's split-stack prologue: %r10 the frame, before the frame
  kOwn,   // the own prologue's check (%r10 COPYSTACK_OWN_CHECK): before or
          // after the frame, which the unwind tables say
  kProbe, // __copystack_stack_probe: %rax the frame about to be taken
};

uintptr_t grow(MoreStackBlock *b, uintptr_t limit, Check check,
               uint8_t *wide) {
  // On the thread's stack, in the task's name (platform/sanitizers.h).
  san::UnseenScope unseen;
  Thread &th = __copystack_thread;
  Task *task = th.task;
  if (!task)
    fatal("__morestack called with a stack limit set but no task running");
  const Stack old = task->stack;
  // The registers on the task's stack below the asker's stack pointer, or
  // in a copy of the stack's used part when its frame reaches below the
  // stack (frames.h, place_block).
  const Placed placed = place_block(b, old);
  b = placed.regs;
  const uintptr_t block = placed.at;
  const uintptr_t sp = block + MS_BLOCK_BYTES; // the asker's, at its check
  if ((!placed.src && block < old.lo) || sp >= old.hi)
    fatal("stack overflow: __morestack's register block at %#lx is outside "
          "the task's stack [%#lx, %#lx): code without a prologue check used "
          "more than the %d-byte guard",
          (unsigned long)block, (unsigned long)old.lo, (unsigned long)old.hi,
          COPYSTACK_GUARD);
  if (check != Check::kProbe && !is_check_return(block_pc(b)))
    fatal("__morestack was called from %s (%#lx), not from a "
          "split-stack prologue",
          Demangled(symbol_name(block_pc(b))).str(), (unsigned long)block_pc(b));
  // The monitor asked the task to yield (sched/preempt.h): through the
  // limit, or, while the thread was in the runtime, through preempt_seq. A
  // probe leaves it to the check after the prologue.
  const uintptr_t yield =
      limit == COPYSTACK_PREEMPT_LIMIT ||
              __atomic_load_n(&th.preempt_seq, __ATOMIC_RELAXED) == th.run_seq
          ? 1
          : 0;
  const char *why = "unknown";
  Asker asker;
  asker.fn = frame_info_for_function(block_pc(b), &why);
  if (!asker.fn)
    fatal("__morestack was called from %s: %s",
          Demangled(symbol_name(block_pc(b))).str(), why);
  size_t frame = block_frame_word(b);
  if (check != Check::kLlvm) {
    // Neither check need be at the function's entry (shrink-wrapping may
    // move the prologue, and with it the probe, past code that reorders
    // registers): its registers are range-checked, none put back.
    asker.args_unknown = true;
    // The own check: a frame below the guard's budget, or already taken.
    frame = check == Check::kProbe ? block_probe_bytes(b) : 0;
  }
  const uintptr_t asker_pc = block_pc(b); // b is on the old stack, freed below
  const size_t live = old.hi - sp;
  const uintptr_t probe =
      check != Check::kProbe && frame < kSmallFrame ? sp : sp - frame;
  Config &cfg = config();
  const size_t max = cfg.max_stack.load();
  // In-place calls kept finding too little room (abi.h,
  // COPYSTACK_ROOM_LIMIT): the room below the frames live too, with some
  // to spare for the callers a little deeper that asked; never past the
  // maximum (the request is an optimization, not a need).
  size_t room = limit == COPYSTACK_ROOM_LIMIT
                    ? COPYSTACK_IN_PLACE_ROOM + kSmallFrame
                    : 0;
  auto fits_with = [&](size_t r) { return probe - r > old.lo + COPYSTACK_GUARD; };
  if (room && next_size(old.size(), live + frame + room, fits_with(room)) > max)
    room = 0;
  // A yield at a check parks the task with the wide vector registers below
  // the block (a probe's is taken by the check after the prologue).
  const bool fits = fits_with(room) &&
                    !(yield && check != Check::kProbe &&
                      block - old.lo < yield_room_bytes());

  if (cfg.verify && check != Check::kProbe &&
      !(asker.fn->map->flags & COPYSTACK_MAPF_ARGS_CONSERVATIVE) &&
      block_arg_bytes(b) != asker.fn->map->stack_arg_bytes)
    fatal("verify: the frame map of %s says %u bytes of stack arguments, "
          "its prologue says %lu",
          Demangled(asker.fn->name()).str(), asker.fn->map->stack_arg_bytes,
          (unsigned long)block_arg_bytes(b));

  if (fits && !cfg.stress) {
    if (cfg.verify)
      scrub(task, block, frame);
    return block | yield;
  }

  const size_t size = next_size(old.size(), live + frame + room, fits);
  if (size > max)
    over_limit(task, b, size, max, asker.fn->name(), frame, live);

  if (check != Check::kLlvm) {
    // How far the asker's frame stands, by its unwind tables at the call:
    // read only when the stack moves (verify mode fails every check).
    UnwindStep u;
    if (!unwind_step(block_pc(b) - 1, sp, block_fp(b), old.lo, old.hi, &u))
      fatal("%s's frame at its stack check (%#lx) has no unwind rule the "
            "runtime follows",
            Demangled(asker.fn->name()).str(), (unsigned long)block_pc(b));
    if (check == Check::kProbe) {
      asker.pushed = static_cast<uint32_t>(u.cfa - 8 - sp);
      if (u.rbp_slot)
        asker.rbp_at = static_cast<int32_t>(u.rbp_slot - sp);
    } else {
      asker.framed = u.cfa != sp + 8;
    }
  }
  const Copy c = copy_stack(task, size, block, Block::kMoreStack, &asker,
                            /*to_pool=*/false, placed.src);
  free_placed(placed);
  const Stack fresh = task->stack;
  Stack from = old; // and the asker's frame below it, as copy_stack
  if (block < from.lo)
    from.lo = block;
  relocate_wide(wide,
                asker.args_unknown ||
                    (asker.fn->map->flags & (COPYSTACK_MAPF_VECTOR_ARGS |
                                             COPYSTACK_MAPF_ARGS_CONSERVATIVE)),
                from, fresh);
  if (cfg.verify) // below the block is poison already; the asker writes on
    scrub(task, c.block, frame);
  th.task_lo = fresh.lo;
  th.task_hi = fresh.hi;
  th.task_limit = limit_for(fresh);
  san::task_stack_moved(fresh.lo, fresh.hi);

  const bool grew = size > old.size();
  Stats &st = stats();
  (grew ? st.growths : st.moves)++;

  copystack_growth_event ev{};
  ev.task_id = task->id;
  ev.copy_number = task->copies;
  ev.old_size = old.size();
  ev.new_size = size;
  ev.used = live;
  ev.headroom = sp - old.lo;
  ev.frame = frame;
  ev.function = asker.fn->name();
  ev.ns = c.ns;
  ev.forced = !grew;
  publish_growth(ev);
  trace::stack(task->id, grew ? trace::kGrow : trace::kMove, old.size(), size,
               c.used, asker_pc);
  if (grew && profile::recording(profile::kGrowth)) {
    // The asker stands in its prologue on the new stack, as over_limit's
    // dump starts it.
    const auto *moved = reinterpret_cast<const MoreStackBlock *>(c.block);
    profile::growth(task, block_pc(moved), block_sp(moved), block_fp(moved),
                    c.used);
  }
  return c.block | yield;
}

} // namespace

extern "C" uintptr_t __copystack_grow(MoreStackBlock *b, uintptr_t limit,
                                       uint8_t *wide) {
  return grow(b, limit,
              block_frame_word(b) == COPYSTACK_OWN_CHECK ? Check::kOwn
                                                           : Check::kLlvm,
              wide);
}

extern "C" uintptr_t __copystack_grow_probe(MoreStackBlock *b, uintptr_t limit,
                                             uint8_t *wide) {
  return grow(b, limit, Check::kProbe, wide);
}
