// relocate.h: copying a stack and rewriting its pointers.
//
// copy() moves the used part of the old stack [old.lo, old.hi) to the new
// one and, in the same pass, adds delta = new.hi - old.hi to every word that
// points into the old stack: every word of every frame is range-checked, as
// registers are (docs/maps.md). run() then walks the new copy frame by
// frame and puts back the words the maps know are not pointers:
//
//   1. the asking function's argument registers that are not pointers (its
//      map's gpr_mask), and the vector registers unless they carry pointers;
//   2. its incoming stack arguments that are not pointers;
//   3. for every frame up to the task's entry, each found by its CFA rule
//      at the call site (the %rbp chain, or fixed %rsp distances in
//      functions without a frame pointer, frame_info.h): the
//      words of its map's NO_POINTERS objects and the unmarked words of its
//      BITMAP objects; and it follows the slots that name memory off the
//      frame (a jmp_buf, a va_list, a register save area) to relocate
//      their words.
//
// A word not described as a pointer is never changed where the maps know it
// is an integer; a spill slot or a callee-saved register holding an address
// inside the old stack moves with it. Verify (scan) mode marks the words of
// every frame and reports the words outside every frame that held an old
// stack address.
#ifndef COPYSTACK_RELOCATE_H
#define COPYSTACK_RELOCATE_H

#include "core/frame_info.h"
#include "core/stack_alloc.h"
#include "platform/cpu.h"

#include <cstdint>
#include <vector>

namespace copystack_rt {

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
  // The first frame is the asking function's at its own check (copy.h,
  // Asker::framed): set up, but nothing of the program's written to it
  // yet, so its map's slots hold no value; its words are range-checked
  // only, none put back and no slot followed.
  bool first_unwritten = false;
  // Words the runtime itself pushed (register block, switch frame).
  uintptr_t known_lo = 0, known_hi = 0;
  // Of those, words that hold integers (the switch frame's thread state):
  // put back whatever the copy's range check did to them.
  uintptr_t integers_lo = 0, integers_hi = 0;
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
  // src_hi: where the old stack's top now is, when its used part was
  // saved elsewhere (a compacted task's buffer, core/compact.h); 0: the
  // old stack itself. The words are range-checked against old_stack
  // either way, and a word put back comes from the source.
  Relocator(Stack old_stack, Stack new_stack, FrameLookup &lookup,
            uintptr_t terminal_ra, uintptr_t src_hi = 0);

  // Before copy(): the bytes the copy runs ahead of the walk by (tests set
  // one word, so that every read of the walk must find its word copied).
  void set_copy_chunk(size_t bytes) { copy_chunk_ = bytes; }
  // Before run(): remember which words of [used_lo, new.hi) were examined.
  void enable_verify(uintptr_t used_lo);

  // Copies bytes of the old stack (or of its saved copy) at from to the
  // new stack at to, moving every word that points into the old stack (the
  // range check of a register). Before run(), which does the copying, a
  // chunk ahead of its walk, and finishes it.
  void copy(uintptr_t to, uintptr_t from, size_t bytes);

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
    uintptr_t base; // CFA - 16: %rbp, with a frame pointer
  };

  Stack old_, new_;
  intptr_t delta_;
  // A word of the new stack at a came from a - src_shift_ (delta_ unless
  // the old stack's bytes were saved elsewhere).
  intptr_t src_shift_;
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

  // The copy not yet done: [pend_to_, pend_end_) of the new stack, from
  // pend_from_.
  uintptr_t pend_to_ = 0, pend_end_ = 0, pend_from_ = 0;
  size_t copy_chunk_ = 4096;
  // Copies up to at least end (a chunk at a time).
  void ensure(uintptr_t end) {
    if (end > pend_to_ && pend_to_ < pend_end_)
      copy_upto(end);
  }
  void finish_copy() { ensure(pend_end_); }
  void copy_upto(uintptr_t end);
  void adjust(uintptr_t *slot);
  void restore(uintptr_t *slot);
  void restore_span(uintptr_t from, uintptr_t to);
  static uint64_t put_back(uintptr_t *__restrict to,
                           const uintptr_t *__restrict from, size_t n);
  // The copy fused with the range check, in the variant cpu_variant()
  // chose (platform/cpu.h).
  static uint64_t copy_run(uintptr_t *to, const uintptr_t *from, size_t n,
                           uintptr_t lo, uintptr_t size, intptr_t delta);

public:
  // One variant, for the unit tests that compare them.
  static uint64_t copy_run_as(CpuVariant v, uintptr_t *to,
                              const uintptr_t *from, size_t n, uintptr_t lo,
                              uintptr_t size, intptr_t delta);

private:
  // Verify (scan) mode: the words [addr, addr + bytes) were examined.
  void known(uintptr_t addr, size_t bytes) {
    if (verify_)
      mark_known(addr, bytes);
  }
  void mark_known(uintptr_t addr, size_t bytes);
  void object(uintptr_t rbp, uintptr_t frame_lo, const copystack_object &o,
              const copystack_frame_map &map);
  // Puts back the words of skip (offsets from base), within [lo, hi): a
  // frame's own words below its frame record.
  void frame_words(uintptr_t lo, uintptr_t hi, uintptr_t base,
                   const FrameInfo::Run *skip, uint32_t n);
  void reg_save_area(uintptr_t va_list);
  void jmpbuf(uintptr_t slot);
  void valist(uintptr_t slot);
  [[noreturn]] void broken(const char *what, uintptr_t at) const;
};

} // namespace copystack_rt

#endif
