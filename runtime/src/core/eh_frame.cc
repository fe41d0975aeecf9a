// eh_frame.cc: the unwind-table reader (eh_frame.h).
#include "platform/split_stack_notes.h"
#include "core/eh_frame.h"

#include <cstring>
#include <link.h>

namespace copystack_rt {

namespace {

// Pointer encodings (DW_EH_PE_*).
constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPeUleb = 0x01, kPeUdata2 = 0x02,
                  kPeUdata4 = 0x03, kPeUdata8 = 0x04, kPeSleb = 0x09,
                  kPeSdata2 = 0x0a, kPeSdata4 = 0x0b, kPeSdata8 = 0x0c;
constexpr uint8_t kPePcrel = 0x10, kPeDatarel = 0x30;

struct Reader {
  const uint8_t *p;
  const uint8_t *end;

  bool more() const { return p < end; }
  uint8_t u8() { return *p++; }
  template <typename T> T fixed() {
    T v;
    memcpy(&v, p, sizeof v);
    p += sizeof v;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
      b = *p++;
      v |= uint64_t(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    return v;
  }
  int64_t sleb() {
    int64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    do {
      b = *p++;
      v |= int64_t(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
      v |= -(int64_t(1) << shift);
    return v;
  }
  // Reads an encoded pointer; false for encodings this reader rejects.
  // Skipping a value (the personality routine's, say) accepts any
  // application, indirect included.
  bool encoded(uint8_t enc, uintptr_t datarel, uintptr_t &out,
               bool skip_only = false) {
    if (enc == kPeOmit)
      return false;
    uintptr_t here = reinterpret_cast<uintptr_t>(p);
    uintptr_t v;
    switch (enc & 0x0f) {
    case kPeAbsptr: v = fixed<uint64_t>(); break;
    case kPeUleb: v = uleb(); break;
    case kPeUdata2: v = fixed<uint16_t>(); break;
    case kPeUdata4: v = fixed<uint32_t>(); break;
    case kPeUdata8: v = fixed<uint64_t>(); break;
    case kPeSleb: v = static_cast<uintptr_t>(sleb()); break;
    case kPeSdata2: v = static_cast<uintptr_t>(fixed<int16_t>()); break;
    case kPeSdata4: v = static_cast<uintptr_t>(fixed<int32_t>()); break;
    case kPeSdata8: v = static_cast<uintptr_t>(fixed<int64_t>()); break;
    default: return false;
    }
    if (skip_only) {
      out = v;
      return true;
    }
    switch (enc & 0x70) {
    case 0: break;
    case kPePcrel: v += here; break;
    case kPeDatarel: v += datarel; break;
    default: return false;
    }
    if (enc & 0x80)
      return false; // indirect: not produced for code addresses
    out = v;
    return true;
  }
};

bool parse_cie(const uint8_t *cie, Cie &out, const char **why) {
  Reader r{cie, nullptr};
  uint64_t len = r.fixed<uint32_t>();
  if (len == 0xffffffff) {
    *why = "64-bit DWARF unwind tables are not supported";
    return false;
  }
  r.end = r.p + len;
  if (r.fixed<uint32_t>() != 0) {
    *why = "FDE points at something that is not a CIE";
    return false;
  }
  uint8_t version = r.u8();
  const char *aug = reinterpret_cast<const char *>(r.p);
  r.p += strlen(aug) + 1;
  out.code_align = r.uleb();
  out.data_align = r.sleb();
  if (version == 1)
    r.u8();
  else
    r.uleb(); // return address register
  if (aug[0] == 'z') {
    out.has_aug_data = true;
    uint64_t aug_len = r.uleb();
    const uint8_t *aug_end = r.p + aug_len;
    for (const char *a = aug + 1; *a; ++a) {
      uintptr_t ignored;
      switch (*a) {
      case 'R': out.fde_enc = r.u8(); break;
      case 'L': r.u8(); break;
      case 'P': {
        uint8_t enc = r.u8();
        if (!r.encoded(enc, 0, ignored, /*skip_only=*/true)) {
          *why = "unsupported personality encoding in a CIE";
          return false;
        }
        break;
      }
      case 'S': case 'B': break;
      default:
        *why = "unknown CIE augmentation";
        return false;
      }
    }
    r.p = aug_end;
  } else if (aug[0]) {
    *why = "CIE augmentation without 'z'";
    return false;
  }
  out.insns = r.p;
  out.insns_end = r.end;
  return true;
}

// Runs CFA instructions from [p, end) starting at code address loc, until
// the row that covers pc.
bool run_cfa(const uint8_t *p, const uint8_t *end, const Cie &cie,
             uintptr_t loc, uintptr_t pc, CfaState &st, const CfaState &init,
             const char **why) {
  constexpr int kMaxRemember = 8;
  CfaState stack[kMaxRemember];
  int depth = 0;
  Reader r{p, end};
  auto advance = [&](uint64_t delta) {
    loc += delta * cie.code_align;
    return loc <= pc;
  };
  auto saved_at = [&](unsigned reg, int64_t factored) {
    if (reg < kDwRegs)
      st.saved[reg] = factored * cie.data_align;
  };
  while (r.more()) {
    uint8_t op = r.u8();
    uint8_t hi = op & 0xc0, low = op & 0x3f;
    if (hi == 0x40) { // DW_CFA_advance_loc
      if (!advance(low))
        return true;
      continue;
    }
    if (hi == 0x80) { // DW_CFA_offset
      saved_at(low, static_cast<int64_t>(r.uleb()));
      continue;
    }
    if (hi == 0xc0) { // DW_CFA_restore
      if (low < kDwRegs)
        st.saved[low] = init.saved[low];
      continue;
    }
    switch (op) {
    case 0x00: break; // nop
    case 0x01: {      // set_loc
      uintptr_t to;
      if (!r.encoded(cie.fde_enc, 0, to)) {
        *why = "bad DW_CFA_set_loc";
        return false;
      }
      loc = to;
      if (loc > pc)
        return true;
      break;
    }
    case 0x02: if (!advance(r.u8())) return true; break;
    case 0x03: if (!advance(r.fixed<uint16_t>())) return true; break;
    case 0x04: if (!advance(r.fixed<uint32_t>())) return true; break;
    case 0x05: { // offset_extended
      unsigned reg = static_cast<unsigned>(r.uleb());
      saved_at(reg, static_cast<int64_t>(r.uleb()));
      break;
    }
    case 0x06: { // restore_extended
      unsigned reg = static_cast<unsigned>(r.uleb());
      if (reg < kDwRegs)
        st.saved[reg] = init.saved[reg];
      break;
    }
    case 0x07: case 0x08: { // undefined, same_value
      unsigned reg = static_cast<unsigned>(r.uleb());
      if (reg < kDwRegs)
        st.saved[reg] = 0;
      break;
    }
    case 0x09: { // register: value lives in another register
      unsigned reg = static_cast<unsigned>(r.uleb());
      r.uleb();
      if (reg < kDwRegs)
        st.saved[reg] = 0;
      break;
    }
    case 0x0a: // remember_state
      if (depth == kMaxRemember) {
        *why = "DW_CFA_remember_state nested too deep";
        return false;
      }
      stack[depth++] = st;
      break;
    case 0x0b: // restore_state
      if (depth == 0) {
        *why = "DW_CFA_restore_state without remember_state";
        return false;
      }
      st = stack[--depth];
      break;
    case 0x0c: // def_cfa
      st.cfa_reg = static_cast<unsigned>(r.uleb());
      st.cfa_off = static_cast<int64_t>(r.uleb());
      st.cfa_expr = false;
      break;
    case 0x0d: st.cfa_reg = static_cast<unsigned>(r.uleb()); break;
    case 0x0e: st.cfa_off = static_cast<int64_t>(r.uleb()); break;
    case 0x0f: // def_cfa_expression: the row fails only if it is pc's
      r.p += r.uleb();
      st.cfa_expr = true;
      break;
    case 0x10: case 0x16: { // expression, val_expression
      unsigned reg = static_cast<unsigned>(r.uleb());
      r.p += r.uleb();
      if (reg < kDwRegs)
        st.saved[reg] = 0;
      break;
    }
    case 0x11: { // offset_extended_sf
      unsigned reg = static_cast<unsigned>(r.uleb());
      saved_at(reg, r.sleb());
      break;
    }
    case 0x12: // def_cfa_sf
      st.cfa_reg = static_cast<unsigned>(r.uleb());
      st.cfa_off = r.sleb() * cie.data_align;
      st.cfa_expr = false;
      break;
    case 0x13: st.cfa_off = r.sleb() * cie.data_align; break;
    case 0x14: case 0x15: { // val_offset, val_offset_sf
      unsigned reg = static_cast<unsigned>(r.uleb());
      if (op == 0x14)
        r.uleb();
      else
        r.sleb();
      if (reg < kDwRegs)
        st.saved[reg] = 0;
      break;
    }
    case 0x2e: r.uleb(); break; // GNU_args_size
    case 0x2f: {                // GNU_negative_offset_extended
      unsigned reg = static_cast<unsigned>(r.uleb());
      saved_at(reg, -static_cast<int64_t>(r.uleb()));
      break;
    }
    default:
      *why = "unknown DWARF call frame instruction";
      return false;
    }
  }
  return true;
}

} // namespace

// Finds the FDE covering pc through the object's .eh_frame_hdr table.
const uint8_t *find_fde(uintptr_t pc, const char **why) {
  struct dl_find_object dlfo;
  if (_dl_find_object(reinterpret_cast<void *>(pc), &dlfo) != 0) {
    *why = "the address is in no loaded object";
    return nullptr;
  }
  auto *hdr = static_cast<const uint8_t *>(dlfo.dlfo_eh_frame);
  if (!hdr || hdr[0] != 1) {
    *why = "the object has no usable .eh_frame_hdr";
    return nullptr;
  }
  uintptr_t base = reinterpret_cast<uintptr_t>(hdr);
  Reader r{hdr + 4, nullptr};
  uintptr_t eh_frame, count;
  if (!r.encoded(hdr[1], base, eh_frame) || !r.encoded(hdr[2], base, count)) {
    *why = "unsupported .eh_frame_hdr encoding";
    return nullptr;
  }
  if (hdr[3] != (kPeDatarel | kPeSdata4)) {
    *why = "the .eh_frame_hdr search table is not datarel sdata4";
    return nullptr;
  }
  auto *table = reinterpret_cast<const int32_t *>(r.p);
  size_t lo = 0, hi = count;
  while (lo < hi) { // the last entry whose start is <= pc
    size_t mid = lo + (hi - lo) / 2;
    if (base + static_cast<intptr_t>(table[2 * mid]) <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) {
    *why = "no unwind entry covers the address";
    return nullptr;
  }
  return reinterpret_cast<const uint8_t *>(
      base + static_cast<intptr_t>(table[2 * (lo - 1) + 1]));
}


bool parse_fde(const uint8_t *fde, uintptr_t pc, Fde &out, const char **why) {
  Reader r{fde, nullptr};
  uint64_t len = r.fixed<uint32_t>();
  if (len == 0xffffffff) {
    *why = "64-bit DWARF unwind tables are not supported";
    return false;
  }
  r.end = r.p + len;
  const uint8_t *cie_ptr_field = r.p;
  uint32_t cie_off = r.fixed<uint32_t>();
  if (!parse_cie(cie_ptr_field - cie_off, out.cie, why))
    return false;
  uintptr_t range;
  if (!r.encoded(out.cie.fde_enc, 0, out.begin) ||
      !r.encoded(out.cie.fde_enc & 0x0f, 0, range)) {
    *why = "unsupported FDE address encoding";
    return false;
  }
  out.end = out.begin + range;
  if (pc < out.begin || pc >= out.end) {
    *why = "no unwind entry covers the address";
    return false;
  }
  if (out.cie.has_aug_data)
    r.p += r.uleb();
  out.insns = r.p;
  out.insns_end = r.end;
  return true;
}

bool cfa_rules_at(const Fde &fde, uintptr_t pc, CfaState &out,
                  const char **why) {
  CfaState init;
  if (!run_cfa(fde.cie.insns, fde.cie.insns_end, fde.cie, fde.begin,
               ~uintptr_t(0), init, init, why))
    return false;
  out = init;
  if (!run_cfa(fde.insns, fde.insns_end, fde.cie, fde.begin, pc, out, init,
               why))
    return false;
  if (out.cfa_expr) {
    *why = "the frame's CFA is a DWARF expression";
    return false;
  }
  return true;
}

} // namespace copystack_rt
