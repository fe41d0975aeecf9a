// relocate.cc: rewriting the pointers of a copied stack (relocate.h).
#include "platform/split_stack_notes.h"
#include "platform/demangle.h"
#include "core/relocate.h"
#include "machine.h"
#include "platform/fatal.h"

#include <atomic>
#include <cstring>
#include <type_traits>

namespace copystack_rt {

namespace {

class ProcessFrames final : public FrameLookup {
public:
  const FrameInfo *call_site(uintptr_t ra, const char **why) override {
    return frame_info_for_call_site(ra, why);
  }
};

} // namespace

FrameLookup &process_frames() {
  static ProcessFrames frames;
  return frames;
}

Relocator::Relocator(Stack old_stack, Stack new_stack, FrameLookup &lookup,
                     uintptr_t terminal_ra, uintptr_t src_hi)
    : old_(old_stack), new_(new_stack),
      delta_(static_cast<intptr_t>(new_stack.hi - old_stack.hi)),
      src_shift_(static_cast<intptr_t>(new_stack.hi -
                                       (src_hi ? src_hi : old_stack.hi))),
      lookup_(lookup), terminal_ra_(terminal_ra) {}

void Relocator::enable_verify(uintptr_t used_lo) {
  verify_ = true;
  used_lo_ = used_lo;
  seen_.assign((new_.hi - used_lo) / 8, 0);
}

// The one rule of relocation: a word that points into the old stack moves
// by delta; every other value stays as it is. (For words off the stack a
// slot names: a jmp_buf, a va_list. On the stack, copy() has done it.)
void Relocator::adjust(uintptr_t *slot) {
  ensure(reinterpret_cast<uintptr_t>(slot) + 8);
  uintptr_t v = *slot;
  if (v - old_.lo < old_.hi - old_.lo) {
    *slot = v + delta_;
    ++adjusted_;
  }
  if (verify_)
    known(reinterpret_cast<uintptr_t>(slot), 8);
}

// The copy itself, fused with the range check of every word: one streaming
// pass over the used stack, at memory speed. run() then puts back the words
// the maps know are not pointers. Written so that it vectorizes, and built
// once per vector unit (a 64-bit unsigned compare takes one instruction
// with AVX-512, several without); the variant is chosen once, from the CPU
// and COPYSTACK_CPU, so that tests can run every variant a machine has
// (an ifunc could not be steered, and its resolver ran before
// ThreadSanitizer's runtime was initialised).
namespace {

__attribute__((always_inline)) inline uint64_t
copy_run_body(uintptr_t *to, const uintptr_t *from, size_t n, uintptr_t lo,
              uintptr_t size, intptr_t delta) {
  uint64_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    uintptr_t v = from[i];
    bool in = v - lo < size;
    to[i] = in ? v + delta : v;
    count += in;
  }
  return count;
}

uint64_t copy_run_baseline(uintptr_t *to, const uintptr_t *from, size_t n,
                           uintptr_t lo, uintptr_t size, intptr_t delta) {
  return copy_run_body(to, from, n, lo, size, delta);
}

__attribute__((target("avx2"))) uint64_t
copy_run_avx2(uintptr_t *to, const uintptr_t *from, size_t n, uintptr_t lo,
              uintptr_t size, intptr_t delta) {
  return copy_run_body(to, from, n, lo, size, delta);
}

__attribute__((target("avx512f"))) uint64_t
copy_run_avx512f(uintptr_t *to, const uintptr_t *from, size_t n,
                 uintptr_t lo, uintptr_t size, intptr_t delta) {
  return copy_run_body(to, from, n, lo, size, delta);
}

using CopyRun = uint64_t (*)(uintptr_t *, const uintptr_t *, size_t,
                             uintptr_t, uintptr_t, intptr_t);
std::atomic<CopyRun> g_copy_run{nullptr};

CopyRun copy_run_for(CpuVariant v) {
  switch (v) {
  case CpuVariant::kAvx512f: return copy_run_avx512f;
  case CpuVariant::kAvx2: return copy_run_avx2;
  default: return copy_run_baseline;
  }
}

} // namespace

uint64_t Relocator::copy_run(uintptr_t *to, const uintptr_t *from, size_t n,
                             uintptr_t lo, uintptr_t size, intptr_t delta) {
  CopyRun f = g_copy_run.load(std::memory_order_relaxed);
  if (!f) {
    f = copy_run_for(cpu_variant());
    g_copy_run.store(f, std::memory_order_relaxed);
  }
  return f(to, from, n, lo, size, delta);
}

uint64_t Relocator::copy_run_as(CpuVariant v, uintptr_t *to,
                                const uintptr_t *from, size_t n, uintptr_t lo,
                                uintptr_t size, intptr_t delta) {
  return copy_run_for(v)(to, from, n, lo, size, delta);
}

void Relocator::copy(uintptr_t to, uintptr_t from, size_t bytes) {
  CS_CHECK(bytes % 8 == 0 && to % 8 == 0 && from % 8 == 0,
           "a stack copy moves whole words");
  CS_CHECK(pend_to_ == pend_end_, "one copy per relocation");
  pend_to_ = to;
  pend_from_ = from;
  pend_end_ = to + bytes;
}

// The copy runs ahead of the walk by a chunk at a time: a frame's words,
// and the link to the next frame, are read while the copy's stores are
// still in the first-level cache. Walking a megabyte-deep stack after
// copying all of it waited on a cache miss for every frame's link.
void Relocator::copy_upto(uintptr_t end) {
  uintptr_t e = pend_to_ + copy_chunk_;
  if (e < end)
    e = (end + 7) & ~uintptr_t(7);
  if (e > pend_end_)
    e = pend_end_;
  size_t n = (e - pend_to_) / 8;
  adjusted_ += copy_run(reinterpret_cast<uintptr_t *>(pend_to_),
                        reinterpret_cast<const uintptr_t *>(pend_from_), n,
                        old_.lo, old_.size(), delta_);
  pend_to_ = e;
  pend_from_ += 8 * n;
}

// A word the copy moved though the maps say it is not a pointer gets its
// value back from the old stack (or its saved copy).
void Relocator::restore(uintptr_t *slot) {
  ensure(reinterpret_cast<uintptr_t>(slot) + 8);
  uintptr_t was = *reinterpret_cast<const uintptr_t *>(
      reinterpret_cast<uintptr_t>(slot) - src_shift_);
  if (*slot != was) {
    *slot = was;
    --adjusted_;
  }
  known(reinterpret_cast<uintptr_t>(slot), 8);
}

// A span of such words (an integer array, a buffer): every word gets its
// source value back in one branch-free pass that counts the words the copy
// had changed.
void Relocator::restore_span(uintptr_t from, uintptr_t to) {
  if (from >= to)
    return;
  ensure(to);
  adjusted_ -= put_back(reinterpret_cast<uintptr_t *>(from),
                        reinterpret_cast<const uintptr_t *>(from - src_shift_),
                        (to - from) / 8);
  known(from, to - from);
}

uint64_t Relocator::put_back(uintptr_t *__restrict to,
                             const uintptr_t *__restrict from, size_t n) {
  uint64_t changed = 0;
  for (size_t i = 0; i < n; ++i) {
    changed += to[i] != from[i];
    to[i] = from[i];
  }
  return changed;
}

void Relocator::mark_known(uintptr_t addr, size_t bytes) {
  // The words of [addr, addr + bytes) inside [used_lo_, new_.hi): one
  // memset (word by word with a test each, it was a tenth of stress +
  // verify mode's time on lz4).
  uintptr_t lo = addr & ~uintptr_t(7), end = addr + bytes;
  if (lo < used_lo_)
    lo = used_lo_;
  if (end > new_.hi)
    end = new_.hi;
  if (lo < end)
    memset(&seen_[(lo - used_lo_) / 8], 1, (end - lo + 7) / 8);
}

// The jmp_buf a frame last passed to setjmp. The slot itself was relocated
// with the frame's words; the jmp_buf may be anywhere (a local of this or an
// outer frame, a global, the heap).
void Relocator::jmpbuf(uintptr_t slot) {
  finish_copy(); // the jmp_buf may lie anywhere on the stack
  auto *jb = *reinterpret_cast<uintptr_t **>(slot);
  if (!jb)
    return;
  // The target's glibc jmp_buf layout and mangling (machine.h).
  for (int i : jmpbuf_abi::kPlain)
    adjust(&jb[i]);
  for (int i : jmpbuf_abi::kMangled) {
    uintptr_t v = jmpbuf_abi::demangle(jb[i]);
    if (v - old_.lo < old_.hi - old_.lo) {
      jb[i] = jmpbuf_abi::mangle(v + delta_);
      ++adjusted_;
    }
  }
  known(reinterpret_cast<uintptr_t>(jb), 8 * jmpbuf_abi::kWords);
}

// A va_list no stack object of the frame describes (pinned, on the heap,
// in another frame): the slot was relocated with the frame's words; the
// list's addresses (x86-64: its overflow area and register save area;
// AArch64: its stack arguments and the tops of its two register save
// areas; machine.h kVaListAddressWords) may point into the stack.
// Relocating a word twice (the list is also some frame's stack object) is
// harmless: an adjusted word no longer points into the old stack.
void Relocator::valist(uintptr_t slot) {
  finish_copy();
  auto *ap = *reinterpret_cast<uintptr_t **>(slot);
  if (!ap)
    return;
  for (int i : kVaListAddressWords)
    adjust(&ap[i]);
}

// A va_list a variadic shim started: its register save area (in the
// shim's frame) holds the six integer argument registers, which may be
// pointers; the pointers of the va_list itself were relocated already.
void Relocator::reg_save_area(uintptr_t va_list) {
  finish_copy();
  uintptr_t rsa = reinterpret_cast<uintptr_t *>(va_list)[2];
  if (!rsa)
    return;
  if (rsa < new_.lo || rsa + 48 > new_.hi)
    broken("a va_list's register save area lies outside the stack", rsa);
  for (int i = 0; i < 6; ++i)
    adjust(reinterpret_cast<uintptr_t *>(rsa) + i);
}

// The copy range-checked every word of the frame [lo, base): the map's
// pointer words, the callee-saved register slots, and whatever the
// register allocator spilled there (docs/maps.md, "Values live across
// calls"). The words its map knows hold no pointer (skip: runs from base,
// CFA - 16, ascending) get their values back.
void Relocator::frame_words(uintptr_t lo, uintptr_t hi, uintptr_t base,
                            const FrameInfo::Run *skip, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    uintptr_t s = base + skip[i].offset, e = s + 8 * skip[i].words;
    if (s < lo)
      s = lo;
    if (e > hi)
      e = hi;
    restore_span(s, e);
  }
}

void Relocator::object(uintptr_t rbp, uintptr_t frame_lo,
                       const copystack_object &o,
                       const copystack_frame_map &map) {
  uintptr_t base = (o.flags & COPYSTACK_OBJF_OUTGOING)
                       ? frame_lo + static_cast<intptr_t>(o.offset)
                       : rbp + static_cast<intptr_t>(o.offset);
  if (base < new_.lo || base + o.size > new_.hi)
    broken("a frame map object lies outside the stack", base);
  ensure(base + o.size);
  switch (o.kind) {
  case COPYSTACK_OBJ_NO_POINTERS:
    restore_span(base, base + (o.size & ~7u));
    known(base, o.size);
    return;
  case COPYSTACK_OBJ_ALL_WORDS:
    known(base, o.size);
    if (o.flags & COPYSTACK_OBJF_REG_SAVE_AREA)
      reg_save_area(base);
    return;
  case COPYSTACK_OBJ_JMPBUF_REF:
    adjust(reinterpret_cast<uintptr_t *>(base));
    jmpbuf(base);
    return;
  case COPYSTACK_OBJ_VALIST_REF:
    adjust(reinterpret_cast<uintptr_t *>(base));
    valist(base);
    return;
  case COPYSTACK_OBJ_BITMAP: {
    const uint64_t *bits = copystack_map_bitmaps(&map) + o.bitmap;
    uint32_t words = o.size / 8;
    for (uint32_t w = 0; w < words; ++w)
      if (!(bits[w / 64] & (uint64_t(1) << (w % 64))))
        restore(reinterpret_cast<uintptr_t *>(base + 8 * w));
    known(base, o.size);
    if (o.flags & COPYSTACK_OBJF_REG_SAVE_AREA)
      reg_save_area(base);
    return;
  }
  default:
    fatal("frame map of %s has an object of unknown kind %u",
          Demangled(copystack_map_name(&map)).str(),
          o.kind);
  }
}

void Relocator::broken(const char *what, uintptr_t at) const {
  fatal("relocation of a stack copied from [%#lx, %#lx) to [%#lx, %#lx): "
        "%s at %#lx (walked %zu frames, last %s)",
        (unsigned long)old_.lo, (unsigned long)old_.hi, (unsigned long)new_.lo,
        (unsigned long)new_.hi, what, (unsigned long)at, frames_.size(),
        Demangled(frames_.empty() ? "none" : frames_.back().name).str());
}

void Relocator::run(const WalkStart &s) {
  const SavedRegisters &r = s.regs;
  // The runtime's block (registers, switch frame) and the first return
  // address slot; the rest is copied as the walk reaches it.
  ensure(s.known_hi > reinterpret_cast<uintptr_t>(s.ra_slot) + 8
             ? s.known_hi
             : reinterpret_cast<uintptr_t>(s.ra_slot) + 8);
  if (s.known_hi > s.known_lo)
    known(s.known_lo, s.known_hi - s.known_lo);
  if (s.integers_hi > s.integers_lo)
    restore_span(s.integers_lo, s.integers_hi);

  // 1. Registers, in the block the runtime pushed (the copy range-checked
  // it). Argument registers are precise when the asking function's map
  // could model its signature: those that are not pointers get their values
  // back; callee-saved registers and %rbp carry no type and stay
  // range-checked.
  if (s.asker && !(s.asker->flags & COPYSTACK_MAPF_ARGS_CONSERVATIVE)) {
    for (int i = 0; i < kNumArgRegs; ++i)
      if (r.arg[i] && !(s.asker->gpr_mask & (1u << i)))
        restore(r.arg[i]);
    if (r.xmm && !(s.asker->flags & COPYSTACK_MAPF_VECTOR_ARGS)) {
      uintptr_t x = reinterpret_cast<uintptr_t>(r.xmm);
      restore_span(x, x + 16 * sizeof(uint64_t)); // xmm0-7, both halves
    }
  }

  // 2. The asking function's incoming stack arguments: those its map says
  // are not pointers get their values back.
  if (s.asker && !(s.asker->flags & COPYSTACK_MAPF_ARGS_CONSERVATIVE)) {
    const copystack_frame_map &m = *s.asker;
    const copystack_object *objects = copystack_map_objects(&m);
    for (uint32_t i = 0; i < m.nobjects; ++i)
      if (objects[i].flags & COPYSTACK_OBJF_ARGUMENT)
        object(s.asker_cfa - 16, s.asker_cfa, objects[i], m);
  }

  // 3. The frames, innermost first, each by its CFA rule at the call site
  // (FrameInfo::sp_cfa): through the %rbp chain where functions keep frame
  // pointers, by fixed distances where they do not. The loop keeps
  // its state in locals: the frames' words are written through plain
  // uintptr_t pointers, so the compiler would otherwise reload every member
  // after each store, and a deep recursion's frames (plain, one call site)
  // cost a few instructions and the load of the next link each.
  const uintptr_t lo = new_.lo, hi = new_.hi;
  const uintptr_t terminal = terminal_ra_;
  const bool verify = verify_;
  // How far the copy has gone (pend_to_), refreshed after each call that
  // may take it further; the copy's end does not change during the walk.
  const uintptr_t pend_end = pend_end_;
  uintptr_t copied = pend_to_;
  uintptr_t last_ra = last_ra_;
  const FrameInfo *last_fi = last_fi_;
  unsigned nframes = nframes_;
  uintptr_t *ra_slot = s.ra_slot;
  uintptr_t rbp = r.rbp ? *r.rbp : 0;
  uintptr_t frame_lo = reinterpret_cast<uintptr_t>(ra_slot) + 8;
  if (reinterpret_cast<uintptr_t>(ra_slot) < lo ||
      reinterpret_cast<uintptr_t>(ra_slot) + 8 > hi)
    broken("a return address slot lies outside the stack",
           reinterpret_cast<uintptr_t>(ra_slot));
  // The steps of a frame, shared by the loop below and its loop for a
  // recursion. The frame's CFA by its rule at the call: %rbp + 16, or (no
  // frame pointer, sp_cfa) a fixed distance above the callee's CFA.
  auto cfa_of = [&](uint32_t sp_cfa, uint32_t fp_cfa) {
    if (!sp_cfa) {
      if (rbp < frame_lo || rbp + fp_cfa > hi || (rbp & 7))
        broken("a frame pointer is out of order", rbp);
      return rbp + fp_cfa;
    }
    uintptr_t cfa = frame_lo + sp_cfa;
    if (cfa > hi)
      broken("a frame's CFA (no frame pointer) lies above the stack", cfa);
    return cfa;
  };
  // The frame's words and the link to the next, copied (ensure(), on
  // locals).
  auto copy_to = [&](uintptr_t cfa) {
    if (cfa > copied && copied < pend_end) {
      copy_upto(cfa);
      copied = pend_to_;
    }
  };
  // On to the caller: its return address slot, and its frame pointer
  // (saved in the frame record at the frame pointer, or where the function
  // without a frame pointer saved it, or, when it did not, still in the
  // register). The record's return address is at CFA + ra_off too.
  auto step = [&](uintptr_t cfa, uint32_t sp_cfa, uint32_t fp_cfa,
                  int32_t rbp_slot, int32_t ra_off) {
    ++nframes;
    ra_slot = reinterpret_cast<uintptr_t *>(cfa + ra_off);
    frame_lo = cfa;
    if (!sp_cfa)
      rbp = *reinterpret_cast<uintptr_t *>(cfa - fp_cfa);
    else if (rbp_slot)
      rbp = *reinterpret_cast<uintptr_t *>(cfa + rbp_slot);
  };
  for (;;) {
    // ra_slot lies in [lo, hi - 8]: the first was checked above, every
    // later one is in a checked frame's words (CFA + ra_off, frame_info.cc
    // build).
    if (verify)
      mark_known(reinterpret_cast<uintptr_t>(ra_slot), 8);
    uintptr_t ra = *ra_slot;
    if (ra == terminal)
      break;
    // A recursion returns into the same call site frame after frame.
    const FrameInfo *fi = last_fi;
    if (ra != last_ra || !fi) {
      const char *why = "unknown";
      fi = lookup_.call_site(ra, &why);
      if (!fi)
        fatal("stack walk: return address %#lx (%s) on a copyable stack: %s",
              (unsigned long)ra, Demangled(symbol_name(ra)).str(), why);
      last_ra = ra;
      last_fi = fi;
    }
    const uint32_t sp_cfa = fi->sp_cfa;
    const uint32_t fp_cfa = fi->fp_cfa;
    const int32_t rbp_slot = fi->rbp_slot;
    const int32_t ra_off = fi->ra_off;
    uintptr_t cfa = cfa_of(sp_cfa, fp_cfa);
    // The map's offsets: from the frame pointer, or from the frame's
    // bottom (AArch64's escaped objects without variable-sized ones).
    const uintptr_t base = fi->sp_offsets ? frame_lo : cfa - fp_cfa;
    copy_to(cfa);
    // The copy did all a frame needs unless its map knows integers or
    // names memory off the frame (most frames of a deep recursion).
    if (nframes == 0 && s.first_unwritten) {
      if (verify)
        frames_.push_back(Frame{frame_lo, cfa, fi->name(), base});
      known(frame_lo, cfa - frame_lo);
      copied = pend_to_;
    } else if (!fi->plain || verify) {
      if (verify)
        frames_.push_back(Frame{frame_lo, cfa, fi->name(), base});
      frame_words(frame_lo, cfa - 16, base, fi->skip, fi->nskip);
      for (uint32_t i = 0; i < fi->njmpbufs; ++i)
        jmpbuf(base + fi->jmpbufs[i]);
      for (uint32_t i = 0; i < fi->nvalists; ++i)
        valist(base + fi->valists[i]);
      for (uint32_t i = 0; i < fi->nregsaves; ++i)
        reg_save_area(base + fi->regsaves[i]);
      known(frame_lo, cfa - frame_lo);
      copied = pend_to_;
    }
    step(cfa, sp_cfa, fp_cfa, rbp_slot, ra_off);
    if (!fi->plain || verify)
      continue;
    // The frames above that return into the same call site (a recursion)
    // and need nothing but the step either (plain, no verify mode): a loop
    // of their own per rule, which keeps its few values in registers.
    auto recursion = [&](auto frame_pointer) {
      const uint32_t rule = frame_pointer ? 0 : sp_cfa;
      while (*ra_slot == last_ra) {
        uintptr_t up = cfa_of(rule, fp_cfa);
        copy_to(up);
        step(up, rule, fp_cfa, rbp_slot, ra_off);
      }
    };
    if (!sp_cfa)
      recursion(std::true_type());
    else
      recursion(std::false_type());
  }
  last_ra_ = last_ra;
  last_fi_ = last_fi;
  nframes_ = nframes;
  // Above the last frame: the task's entry, copied and range-checked.
  finish_copy();
}

unsigned Relocator::report_unrelocated() const {
  if (!verify_)
    return 0;
  unsigned reports = 0;
  for (size_t i = 0; i < seen_.size(); ++i) {
    if (seen_[i])
      continue;
    uintptr_t addr = used_lo_ + 8 * i;
    uintptr_t was = *reinterpret_cast<uintptr_t *>(addr - src_shift_);
    if (was - old_.lo >= old_.size())
      continue;
    report("verify: word at %#lx (outside any frame) held %#lx, an address "
           "in the old stack [%#lx, %#lx): it moved with the stack, though "
           "no frame owns it",
           (unsigned long)addr, (unsigned long)was, (unsigned long)old_.lo,
           (unsigned long)old_.hi);
    ++reports;
  }
  return reports;
}

} // namespace copystack_rt
