// eh_frame.h: what the unwind tables say about one code address.
//
// The reader handles what LLVM emits for x86-64 and AArch64 functions with
// frame pointers: an .eh_frame_hdr search table (datarel sdata4, as GNU ld, gold
// and lld write it), CIEs with "zR"/"zPLR" augmentations, and the call
// frame instructions of ordinary prologues and epilogues. Anything else is
// an error with a reason, not a guess. The object holding an address comes
// from glibc's _dl_find_object (2.35+).
#ifndef COPYSTACK_CORE_EH_FRAME_H
#define COPYSTACK_CORE_EH_FRAME_H

#include "frames.h"

#include <cstdint>

namespace copystack_rt {

// The DWARF register numbers of the frame model (kDwFp, kDwSp, kDwRa) and
// how many registers CfaState tracks (kDwRegs) are the architecture's
// (frames.h).

// DW_EH_PE_absptr: the FDE pointer encoding when a CIE names none.
constexpr uint8_t kPeAbsptr = 0x00;

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = -8;
  uint8_t fde_enc = kPeAbsptr;
  bool has_aug_data = false;
  const uint8_t *insns = nullptr;
  const uint8_t *insns_end = nullptr;
};

struct CfaState {
  unsigned cfa_reg = kDwSp;
  int64_t cfa_off = 0;
  // The CFA is a DWARF expression (which this reader does not evaluate)
  // until a later rule gives it a register and offset again.
  bool cfa_expr = false;
  // Offset from the CFA where a register is saved; 0: not saved.
  int64_t saved[kDwRegs] = {};
};

struct Fde {
  Cie cie;
  uintptr_t begin = 0, end = 0;
  const uint8_t *insns = nullptr, *insns_end = nullptr;
};

// The FDE covering pc, through its object's .eh_frame_hdr table; null (and
// *why) if there is none.
const uint8_t *find_fde(uintptr_t pc, const char **why);

// Parses the FDE at fde, which must cover pc.
bool parse_fde(const uint8_t *fde, uintptr_t pc, Fde &out, const char **why);

// The CFA rule and the callee-saved register slots at pc: the CIE's initial
// instructions, then the FDE's up to the row that covers pc.
bool cfa_rules_at(const Fde &fde, uintptr_t pc, CfaState &out,
                  const char **why);

} // namespace copystack_rt

#endif
