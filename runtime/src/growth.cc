// growth.cc: what __morestack does, on the thread's own stack.
//
// morestack.S saves every register the asking function may need in a block
// on the task stack (asm_offsets.h), switches to the thread's stack and calls
// __copystack_grow with the block. Go's newstack + copystack:
//
//   1. New size: double, and keep doubling until the frames live, the frame
//      that asked and the guard fit. Above the maximum: a fatal message
//      naming the limit and the function.
//   2. Copy the used part, block included, to the top of the new stack.
//   3. Relocate (relocate.h).
//   4. Release the old stack, install the new limit, and return the block's
//      new address; morestack.S restores the registers there and resumes
//      the function at its return address + 1, past LLVM's "ret".
//
// In stress mode every check lands here and the stack moves even when the
// frame fits (Go's stackForceMove). In verify mode every check lands here
// too: checks whose frame fits only scrub the dead part of the stack, so
// that any old-stack address found after a copy was written by a live
// frame, not left behind by a returned one.
#include "split_stack_notes.h"
#include "config.h"
#include "fatal.h"
#include "frame_info.h"
#include "relocate.h"
#include "stats.h"
#include "task.h"
#include "thread.h"

#include "copystack/abi.h"

#include <cstdio>
#include <cstring>

namespace copystack_rt {

struct MoreStackBlock {
  uint64_t xmm[16];
  uintptr_t r15, r14, r13, r12, r11, r10, r9, r8;
  uintptr_t rdi, rsi, rdx, rcx, rbx, rax, rbp;
  uintptr_t ret;        // into the asking function's slow path
  uintptr_t caller_ret; // the asking function's return address
};

static_assert(offsetof(MoreStackBlock, r15) == MS_R15, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, r10) == MS_R10, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rdi) == MS_RDI, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rbx) == MS_RBX, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, rbp) == MS_RBP, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, ret) == MS_RET, "asm_offsets.h");
static_assert(offsetof(MoreStackBlock, caller_ret) == MS_CALLER_RET,
              "asm_offsets.h");

namespace {

// LLVM compares only %rsp, not %rsp - FRAME, for frames below this size
// (kSplitStackAvailable in X86FrameLowering.cpp).
constexpr size_t kSmallFrame = 256;
// Verify mode fills dead stack with this byte: 0xdbdb... is not a canonical
// user-space address, so it never looks like a pointer into a stack.
constexpr int kPoison = 0xdb;

const char *human(size_t bytes, char *buf, size_t len) {
  if (bytes >= (1u << 30) && bytes % (1u << 30) == 0)
    snprintf(buf, len, "%zu GiB", bytes >> 30);
  else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    snprintf(buf, len, "%zu MiB", bytes >> 20);
  else if (bytes >= (1u << 10) && bytes % (1u << 10) == 0)
    snprintf(buf, len, "%zu KiB", bytes >> 10);
  else
    snprintf(buf, len, "%zu bytes", bytes);
  return buf;
}

void scrub(Task *t, uintptr_t below, size_t frame) {
  uintptr_t lo = t->scrub_low < t->stack.lo ? t->stack.lo : t->scrub_low;
  if (lo < below)
    memset(reinterpret_cast<void *>(lo), kPoison, below - lo);
  uintptr_t next = below - frame - COPYSTACK_GUARD;
  t->scrub_low = next < t->stack.lo || next > below ? t->stack.lo : next;
}

[[noreturn]] void over_limit(Task *t, size_t want, size_t max,
                             const char *fn, size_t frame, size_t live) {
  char a[32], b[32];
  fatal("stack of task %lu would grow to %s, over the maximum stack size of "
        "%s, when %s asked for a %zu-byte frame with %zu bytes of frames "
        "live (copystack_set_max_stack() or COPYSTACK_MAX_STACK raise the "
        "limit)",
        (unsigned long)t->id, human(want, a, sizeof a), human(max, b, sizeof b),
        fn, frame, live);
}

} // namespace

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" uintptr_t __copystack_grow(MoreStackBlock *b) {
  Thread &th = __copystack_thread;
  Task *task = th.task;
  if (!task)
    fatal("__morestack called with a stack limit set but no task running");
  const uintptr_t block = reinterpret_cast<uintptr_t>(b);
  const uintptr_t sp = block + MS_CALLER_RET; // the asker's %rsp at its check
  const Stack old = task->stack;
  if (block < old.lo || sp >= old.hi)
    fatal("stack overflow: __morestack's register block at %#lx is outside "
          "the task's stack [%#lx, %#lx): code without a prologue check used "
          "more than the %d-byte guard",
          (unsigned long)block, (unsigned long)old.lo, (unsigned long)old.hi,
          COPYSTACK_GUARD);
  if (*reinterpret_cast<const uint8_t *>(b->ret) != 0xc3)
    fatal("__morestack was called from %s (%#lx), not from an LLVM "
          "split-stack prologue",
          symbol_name(b->ret), (unsigned long)b->ret);
  const char *why = "unknown";
  const FrameInfo *asker = frame_info_for_function(b->ret, &why);
  if (!asker)
    fatal("__morestack was called from %s: %s", symbol_name(b->ret), why);

  const size_t frame = b->r10;
  const size_t live = old.hi - sp;
  const uintptr_t probe = frame < kSmallFrame ? sp : sp - frame;
  const bool fits = probe > old.lo + COPYSTACK_GUARD;
  Config &cfg = config();

  if (cfg.verify && !(asker->map->flags & COPYSTACK_MAPF_ARGS_CONSERVATIVE) &&
      b->r11 != asker->map->stack_arg_bytes)
    fatal("verify: the frame map of %s says %u bytes of stack arguments, "
          "LLVM's prologue says %lu",
          asker->name(), asker->map->stack_arg_bytes, (unsigned long)b->r11);

  if (fits && !cfg.stress) {
    if (cfg.verify)
      scrub(task, block, frame);
    return block;
  }

  size_t size = fits ? old.size() : old.size() * 2;
  while (size <= live + frame + COPYSTACK_GUARD)
    size *= 2;
  const size_t max = cfg.max_stack.load();
  if (size > max)
    over_limit(task, size, max, asker->name(), frame, live);

  const uint64_t t0 = now_ns();
  const Stack fresh = allocate_stack(size);
  const size_t used = old.hi - block;
  const uintptr_t nb = fresh.hi - used;
  memcpy(reinterpret_cast<void *>(nb), b, used);

  Relocator rel(old, fresh, process_frames(),
                reinterpret_cast<uintptr_t>(__copystack_task_return));
  if (cfg.verify)
    memset(reinterpret_cast<void *>(fresh.lo), kPoison, nb - fresh.lo);
  if (cfg.verify_scan)
    rel.enable_verify(nb);
  auto *n = reinterpret_cast<MoreStackBlock *>(nb);
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
  ws.asker = asker->map;
  ws.asker_name = asker->name();
  ws.asker_cfa = nb + MS_CALLER_RET + 8;
  ws.asker_arg_bytes = b->r11;
  ws.ra_slot = &n->caller_ret;
  ws.known_lo = nb;
  ws.known_hi = nb + MS_CALLER_RET;
  rel.run(ws);
  if (cfg.verify_scan)
    if (unsigned n = rel.report_unrelocated())
      report("verify: %u suspicious word(s) after copying the stack of task "
             "%lu for %s",
             n, (unsigned long)task->id, asker->name());

  task->stack = fresh;
  task->copies++;
  task->scrub_low = fresh.lo;
  if (cfg.verify) // below nb is poison already; the asker writes from there
    scrub(task, nb, frame);
  th.task_lo = fresh.lo;
  th.task_hi = fresh.hi;
  th.task_limit = limit_for(fresh);
  release_stack(old);

  const uint64_t ns = now_ns() - t0;
  Stats &st = stats();
  const bool grew = size > old.size();
  (grew ? st.growths : st.moves)++;
  st.bytes_copied += used;
  st.copy_ns += ns;
  st.pointers_adjusted += rel.adjusted();

  copystack_growth_event ev{};
  ev.task_id = task->id;
  ev.copy_number = task->copies;
  ev.old_size = old.size();
  ev.new_size = size;
  ev.used = live;
  ev.headroom = sp - old.lo;
  ev.frame = frame;
  ev.function = asker->name();
  ev.ns = ns;
  ev.forced = !grew;
  publish_growth(ev);
  return nb;
}
