// prologue.cc (AArch64): the decoder of prologue.h. It models the A64
// instructions a function's code before its check is made of (Arm ARM,
// "A64 instruction set encoding"), and nothing else: every other
// instruction ends the scan unknown.
#include "prologue.h"

namespace copystack_rt {
namespace a64 {

namespace {

constexpr unsigned kSp = 31; // register 31 as a base or an add's operand

inline uint32_t bits(uint32_t w, unsigned hi, unsigned lo) {
  return (w >> lo) & ((1u << (hi - lo + 1)) - 1);
}

inline int64_t sign_extend(uint32_t v, unsigned width) {
  const uint32_t m = 1u << (width - 1);
  return static_cast<int64_t>(static_cast<int32_t>((v ^ m) - m));
}

// The registers whose value is known as an offset from the entry's stack
// pointer: sp itself, and whatever an add or sub of an immediate made of
// it (x29 = sp + 16, the frame record's address).
struct Regs {
  bool known[32] = {};
  int64_t off[32] = {};
  Regs() { known[kSp] = true; }
  void set(unsigned r, bool k, int64_t v = 0) {
    known[r] = k;
    off[r] = v;
  }
};

struct Scan {
  Regs regs;
  PrologueStores out;

  bool stop(size_t i, const char *why) {
    out.known = false;
    out.stopped_at = i;
    out.why = why;
    return false;
  }

  void store(int64_t at) {
    if (!out.stored || at < out.lowest)
      out.lowest = at;
    out.stored = true;
  }

  // A general register written by an instruction that is not modelled
  // further: its value is no longer known. Register 31 is the zero
  // register in every form this is called for.
  void clobber(unsigned rd) {
    if (rd != kSp)
      regs.set(rd, false);
  }

  // One load or store (or pair) through base rn, the lowest byte it
  // reaches at offset imm unless post-indexed, written back when pre- or
  // post-indexed.
  // A prefetch (prfm) neither loads nor stores, and its rt names no
  // register.
  bool access(size_t i, bool is_store, unsigned rn, int64_t imm, bool post,
              bool writeback, unsigned rt, int rt2, bool vector,
              bool prefetch = false) {
    if (is_store) {
      if (!regs.known[rn])
        return stop(i, "a store through a register not known");
      store(regs.off[rn] + (post ? 0 : imm));
    } else if (!vector && !prefetch) {
      clobber(rt);
      if (rt2 >= 0)
        clobber(static_cast<unsigned>(rt2));
    }
    if (writeback) {
      if (rn == kSp && !regs.known[kSp])
        return stop(i, "sp written back from an unknown value");
      if (regs.known[rn])
        regs.off[rn] += imm;
    }
    return true;
  }

  bool step(size_t i, uint32_t w) {
    // Hints (nop, bti, ...) and mrs of a system register. Some hints
    // write x16, x17 or x30 (chkfeat, pacia1716, paciasp): not known after
    // any.
    if ((w & 0xfffff01fu) == 0xd503201fu) {
      clobber(16);
      clobber(17);
      clobber(30);
      return true;
    }
    if ((w & 0xfff00000u) == 0xd5300000u) {
      clobber(bits(w, 4, 0));
      return true;
    }
    const uint32_t op0 = bits(w, 28, 25);
    // Data processing, immediate.
    if ((op0 & 0xe) == 0x8) {
      const unsigned rd = bits(w, 4, 0), rn = bits(w, 9, 5);
      if (bits(w, 28, 23) == 0x22) { // add/sub (immediate)
        const bool sf = bits(w, 31, 31), sub = bits(w, 30, 30),
                   setflags = bits(w, 29, 29);
        int64_t imm = bits(w, 21, 10);
        if (bits(w, 22, 22))
          imm <<= 12;
        if (setflags) { // adds/subs/cmp/cmn: rd 31 is the zero register
          clobber(rd);
          return true;
        }
        if (sf && regs.known[rn])
          regs.set(rd, true, regs.off[rn] + (sub ? -imm : imm));
        else if (rd == kSp)
          return stop(i, "sp set from a value not known");
        else
          regs.set(rd, false);
        return true;
      }
      // Logical (immediate) writes sp for rd 31 unless it sets flags, and
      // so do the tag forms beside add/sub (addg, subg).
      if (bits(w, 28, 23) == 0x24 && rd == kSp && bits(w, 30, 29) != 3)
        return stop(i, "sp set by a logical immediate");
      if (bits(w, 28, 23) == 0x23 && rd == kSp)
        return stop(i, "sp set by an instruction not modelled");
      clobber(rd); // adr, adrp, movz/movn/movk, bitfield, extract
      return true;
    }
    // Data processing, register.
    if ((op0 & 0x7) == 0x5) {
      const unsigned rd = bits(w, 4, 0);
      // Register 31 is the zero register for the flag-setting logical and
      // add/sub forms (tst, cmp); in others it may be sp (add/sub of an
      // extended register, irg, addpt): not modelled.
      const uint32_t cls = bits(w, 28, 24);
      if (rd == kSp && !((cls == 0x0a || cls == 0x0b) && bits(w, 29, 29)))
        return stop(i, "register 31 written by a register form");
      clobber(rd);
      return true;
    }
    // SIMD and floating point data processing: no memory, no sp; the
    // conversions between floating point and integers (fmov, fcvtzs...)
    // and smov/umov write a general register.
    if ((op0 & 0x7) == 0x7) {
      const bool fp_int = bits(w, 28, 24) == 0x1e && bits(w, 21, 21) &&
                          bits(w, 15, 10) == 0;
      const bool to_gpr = bits(w, 31, 31) == 0 && bits(w, 28, 21) == 0x70 &&
                          bits(w, 15, 15) == 0 &&
                          (bits(w, 14, 11) == 5 || bits(w, 14, 11) == 7);
      if (fp_int || to_gpr)
        clobber(bits(w, 4, 0));
      return true;
    }
    // Loads and stores.
    if ((op0 & 0x5) == 0x4) {
      const unsigned rt = bits(w, 4, 0), rn = bits(w, 9, 5);
      const bool vector = bits(w, 26, 26);
      if (bits(w, 29, 27) == 0x5) { // load/store pair
        const unsigned opc = bits(w, 31, 30), idx = bits(w, 25, 23);
        const bool load = bits(w, 22, 22);
        // opc 3 is unallocated; a general pair's opc 1 is ldpsw, or stgp
        // (a tag store) when it stores.
        if (opc == 3 || (!vector && opc == 1 && !load))
          return stop(i, "a load/store pair not modelled");
        const unsigned scale = vector ? 4u << opc : (opc & 2 ? 8 : 4);
        const int64_t imm = sign_extend(bits(w, 21, 15), 7) * scale;
        const bool post = idx == 1, writeback = idx == 1 || idx == 3;
        if (idx > 3)
          return stop(i, "a load/store pair not modelled");
        return access(i, !load, rn, imm, post, writeback, rt,
                      static_cast<int>(bits(w, 14, 10)), vector);
      }
      if (bits(w, 29, 27) == 0x7) { // load/store register
        const unsigned size = bits(w, 31, 30), opc = bits(w, 23, 22);
        bool is_store = false;
        unsigned bytes = 1;
        if (vector) {
          is_store = (opc & 1) == 0;
          bytes = opc & 2 ? 16 : 1u << size;
          if ((opc & 2) && size != 0)
            return stop(i, "a vector load/store not modelled");
        }
        bool prefetch = false;
        if (!vector) {
          is_store = opc == 0;
          bytes = 1u << size;
          prefetch = size == 3 && opc == 2; // prfm, prfum
        }
        if (bits(w, 25, 24) == 1) { // unsigned offset
          const int64_t imm =
              static_cast<int64_t>(bits(w, 21, 10)) * bytes;
          return access(i, is_store, rn, imm, false, false, rt, -1, vector,
                        prefetch);
        }
        if (bits(w, 25, 24) == 0 && !bits(w, 21, 21)) {
          const unsigned idx = bits(w, 11, 10);
          const int64_t imm = sign_extend(bits(w, 20, 12), 9);
          if (idx == 2) // unprivileged: an ordinary access here
            return access(i, is_store, rn, imm, false, false, rt, -1,
                          vector, prefetch);
          return access(i, is_store, rn, imm, idx == 1, idx != 0, rt, -1,
                        vector, prefetch);
        }
        if (!is_store) { // register offset, literal, atomics: loads only
          if (bits(w, 25, 24) == 0 && bits(w, 21, 21) &&
              bits(w, 11, 10) == 2) {
            if (!vector)
              clobber(rt);
            return true;
          }
        }
        return stop(i, "a load/store register form not modelled");
      }
      if (bits(w, 29, 27) == 0x3 && bits(w, 24, 24) == 0) { // literal
        if (!vector)
          clobber(rt);
        return true;
      }
      return stop(i, "a load/store not modelled");
    }
    return stop(i, "a branch or an instruction not modelled");
  }
};

} // namespace

bool is_own_check(const uint32_t *insns) {
  return insns[0] == 0xd53bd050u &&   // mrs x16, tpidr_el0
         insns[1] == 0xf9400610u &&   // ldr x16, [x16, #8]
         insns[2] == 0xeb3063ffu &&   // cmp sp, x16
         insns[3] == 0x54000068u;     // b.hi past the bl and the udf
}

PrologueStores scan_prologue(const uint32_t *insns, size_t n) {
  Scan s;
  s.out.known = true;
  for (size_t i = 0; i < n; ++i)
    if (!s.step(i, insns[i]))
      return s.out;
  s.out.sp_at_end = s.regs.off[kSp];
  return s.out;
}

} // namespace a64
} // namespace copystack_rt
