// relocate.h: rewriting the pointers of a stack that was just copied.
//
// The copy is byte for byte, so every word that pointed into the old stack
// [old.lo, old.hi) still does. The relocator walks the new copy frame by
// frame and adds delta = new.hi - old.hi to exactly the words the maps
// describe, when (and only when) they point into the old stack:
//
//   1. the suspended registers: the asking function's pointer arguments
//      (its map's gpr_mask), and the callee-saved registers and %rbp, which
//      may hold anything and are range-checked;
//   2. the asking function's incoming stack arguments (argument objects of
//      its map);
//   3. for every frame up to the task's entry, through the %rbp chain:
//      every word of the frame but those its map knows hold no pointer
//      (the map's pointer words, the slots where its prologue saved
//      callee-saved registers, the register allocator's spill slots), its
//      saved %rbp, and what its jmp_buf, va_list and register-save-area
//      slots name.
//
// Verify (scan) mode marks each word it looked at and afterwards reports every
// unmarked word of the new stack that holds an old-stack address.
#ifndef COPYSTACK_RELOCATE_H
#define COPYSTACK_RELOCATE_H

#include "core/frame_info.h"
#include "core/stack_alloc.h"

#include <cstdint>
#include <vector>

namespace copystack_rt {

enum ArgReg { kRdi, kRsi, kRdx, kRcx, kR8, kR9, kNumArgRegs };

// Saved register slots in the new copy of the stack (null: not saved).
struct SavedRegisters {
  uintptr_t *arg[kNumArgRegs] = {};
  uintptr_t *csr[kNumCsr] = {};
  uintptr_t *rbp = nullptr;
  uint64_t *xmm = nullptr; // xmm0-7, two words each
};

struct WalkStart {
  SavedRegisters regs;
  // The function that called __morestack, whose prologue has not run; null
  // when the task is suspended at a switch.
  const copystack_frame_map *asker = nullptr;
  const char *asker_name = nullptr;
  uintptr_t asker_cfa = 0;      // its first incoming stack argument
  uint64_t asker_arg_bytes = 0; // %r11 from its prologue
  // The slot holding the return address into the first frame to walk.
  uintptr_t *ra_slot = nullptr;
  // Words the runtime itself pushed (register block, switch frame).
  uintptr_t known_lo = 0, known_hi = 0;
};

class FrameLookup {
public:
  virtual ~FrameLookup() = default;
  virtual const FrameInfo *call_site(uintptr_t ra, const char **why) = 0;
};

// The lookup through unwind tables and magic prefixes (frame_info.h).
FrameLookup &process_frames();

class Relocator {
public:
  Relocator(Stack old_stack, Stack new_stack, FrameLookup &lookup,
            uintptr_t terminal_ra);

  // Before run(): remember which words of [used_lo, new.hi) were examined.
  void enable_verify(uintptr_t used_lo);

  void run(const WalkStart &start);

  // After run() with verify enabled: reports unrelocated old-stack
  // addresses; returns how many.
  unsigned report_unrelocated() const;

  uint64_t adjusted() const { return adjusted_; }
  unsigned frames() const { return nframes_; }

private:
  struct Frame {
    uintptr_t lo, cfa; // [lo, cfa): the words the frame owns
    const char *name;
    uintptr_t rbp;
  };

  Stack old_, new_;
  intptr_t delta_;
  FrameLookup &lookup_;
  uintptr_t terminal_ra_;
  uint64_t adjusted_ = 0;
  unsigned nframes_ = 0;
  uintptr_t last_ra_ = 0;
  const FrameInfo *last_fi_ = nullptr;
  std::vector<Frame> frames_; // verify mode: for naming a word's frame
  // Verify mode.
  bool verify_ = false;
  uintptr_t used_lo_ = 0;
  std::vector<uint8_t> seen_;

  void adjust(uintptr_t *slot);
  static uint64_t adjust_run(uintptr_t *p, uint32_t n, uintptr_t lo,
                             uintptr_t size, intptr_t delta);
  void known(uintptr_t addr, size_t bytes);
  void object(uintptr_t rbp, uintptr_t frame_lo, const copystack_object &o,
              const copystack_frame_map &map);
  void span(uintptr_t from, uintptr_t to);
  void frame_words(uintptr_t lo, uintptr_t rbp, const FrameInfo::Run *skip,
                   uint32_t n);
  void reg_save_area(uintptr_t va_list);
  void scan_all(uintptr_t lo, size_t bytes);
  void jmpbuf(uintptr_t slot);
  void valist(uintptr_t slot);
  [[noreturn]] void broken(const char *what, uintptr_t at) const;
};

} // namespace copystack_rt

#endif
