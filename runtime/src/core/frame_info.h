// frame_info.h: what the runtime knows about one frame on a copyable stack.
//
// From a return address into an instrumented function:
//   - the function's entry and its copystack_frame_map, through the magic
//     prefix the pass put before the entry (abi.h);
//   - where the function's prologue saved the callee-saved registers, from
//     the unwind tables (.eh_frame, found with glibc's _dl_find_object): at
//     -O2 LLVM keeps frame addresses in %r14 and friends across calls, and
//     the callee that saved them is where the old values sit.
// Results are cached per return address; a deep recursion looks up one.
#ifndef COPYSTACK_FRAME_INFO_H
#define COPYSTACK_FRAME_INFO_H

#include "platform/fatal.h"
#include "copystack/abi.h"
#include "frames.h"

#include <cstdint>

namespace copystack_rt {

struct FrameInfo {
  uintptr_t entry = 0;
  const copystack_frame_map *map = nullptr;
  // Call sites only: the frame's CFA (its caller's %rsp after the return)
  // by the unwind tables' rule at the call. sp_cfa 0: %rbp + 16, the
  // caller's %rbp saved at %rbp (a function with a frame pointer).
  // Otherwise the CFA is the callee's CFA (this frame's %rsp after the
  // call returns) + sp_cfa, and rbp_slot is where, from the CFA, the
  // function saved its caller's %rbp (0: it did not, %rbp is still the
  // caller's). Only functions whose maps describe no locals (their
  // offsets are from %rbp) keep no frame pointer (passes/Attributes.cpp).
  uint32_t sp_cfa = 0;
  int32_t rbp_slot = 0;
  // The frame model beyond x86-64's fixed one (frames.h): with a frame
  // pointer, CFA = frame pointer + fp_cfa (16 on x86-64; the callee-saved
  // area's size plus 16 on AArch64, whose frame record is at its bottom),
  // the caller's frame pointer at the frame pointer and the return address
  // above it; without one, the return address at CFA + ra_off.
  uint32_t fp_cfa = 16;
  int32_t ra_off = -8;
  // The map's offsets are from the frame's bottom (its stack pointer at
  // the call: the callee's CFA), not from the frame pointer
  // (COPYSTACK_MAPF_SP_OFFSETS, AArch64).
  bool sp_offsets = false;
  // Call sites only, for the relocator: the words of the frame its map
  // knows hold no pointer (NO_POINTERS objects, the unmarked words of BITMAP
  // objects), as runs of consecutive words at offsets from the frame's
  // base (the frame pointer, CFA - fp_cfa; or its bottom with
  // sp_offsets), in ascending order. Every
  // other word of the frame is range-checked: the map's pointer words,
  // callee-saved register slots, and the register allocator's spill slots
  // (docs/maps.md, "Values live across calls").
  struct Run {
    int32_t offset;
    uint32_t words;
  };
  const Run *skip = nullptr;
  uint32_t nskip = 0;
  // No skip runs and no slots naming memory off the frame: the copy's range
  // check is all the frame needs.
  bool plain = true;
  // Offsets of COPYSTACK_OBJ_JMPBUF_REF slots (scanned as words too: the
  // slot is a pointer itself), whose jmp_bufs are relocated after it.
  const int32_t *jmpbufs = nullptr;
  uint32_t njmpbufs = 0;
  // Offsets of COPYSTACK_OBJ_VALIST_REF slots (scanned as words too), whose
  // va_lists' two pointers are relocated after the slot.
  const int32_t *valists = nullptr;
  uint32_t nvalists = 0;
  // Offsets of va_lists whose register save area is in this frame (a
  // variadic shim's), relocated after the frame's words.
  const int32_t *regsaves = nullptr;
  uint32_t nregsaves = 0;
  const char *name() const { return map ? copystack_map_name(map) : "?"; }
};

// Fills fi.skip and the lists of indirect slots from fi.map.
void flatten_words(FrameInfo &fi);

// Looks up the frame a call site belongs to. The function must be
// instrumented, and its CFA at that call site %rbp + 16 with the caller's
// %rbp below it, or %rsp-based in a function whose map describes no
// locals; otherwise returns null and sets *why.
const FrameInfo *frame_info_for_call_site(uintptr_t return_address,
                                          const char **why);

// Looks up only the instrumented function containing pc (the function that
// called __morestack, whose prologue has not run yet).
const FrameInfo *frame_info_for_function(uintptr_t pc, const char **why);

// One frame up from the function stopped at pc (an address inside the
// instruction it stopped at or the call it made), whose %rsp and %rbp there
// were sp and rbp, by the unwind tables' CFA rule at pc: its return
// address, its caller's %rbp, its CFA (the caller's %rsp after the return),
// and whether the rule is %rsp-based (the function keeps no frame pointer
// there). False where the tables have no rule this reader follows or the
// frame is not on [lo, hi). The words of [lo, hi) are read at shift bytes
// from their addresses (a compacted task's block). Reads only (no
// allocation, no lock): for signal handlers and dumps.
struct UnwindStep {
  uintptr_t ret, rbp, cfa;
  uintptr_t rbp_slot; // where the function saved its caller's %rbp, or 0
  bool by_rsp;
  bool by_lr; // ret is lr: the function had not saved it
};
bool unwind_step(uintptr_t pc, uintptr_t sp, uintptr_t rbp, uintptr_t lo,
                 uintptr_t hi, UnwindStep *out, intptr_t shift = 0,
                 uintptr_t lr = 0);

// Where a task dump starts when a signal interrupted a task on its stack
// [lo, hi) (uctx: the handler's ucontext_t): pc is the interrupted pc + 1
// (dumps take pcs as return addresses, and look up the rule at pc - 1),
// sp, fp and lr the interrupted stack pointer, frame pointer and link
// register (AArch64's x30; 0 on x86-64); the dump's walk goes on by the
// unwind tables' rules (a leaf, a libc function in place, a function
// without a frame pointer leaves the frame pointer to its caller, and on
// AArch64 a leaf returns through x30). False, and all 0, when the stack
// pointer is not on [lo, hi). Reads only: for signal handlers.
bool interrupted_start(const void *uctx, uintptr_t lo, uintptr_t hi,
                       FrameStart *at);

// The map of an instrumented function from its entry, or null. Resolves the
// escaped offsets the first time.
const copystack_frame_map *map_for_entry(uintptr_t entry);

// True when fn's prefix (abi.h) carries COPYSTACK_MAGIC.
bool is_instrumented(const void *fn);

// fork(): the frame cache's lock, before it and after it (sched/fork.cc).
void frame_info_fork_lock();
void frame_info_fork_unlock();

// A symbol name for pc (dladdr), for messages; never null.
const char *symbol_name(uintptr_t pc);

} // namespace copystack_rt

#endif
