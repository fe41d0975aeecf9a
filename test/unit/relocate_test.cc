// Units of relocate.cc: relocating a hand-built stack. Two frames and a
// suspended asking function are laid out in an "old" stack exactly as the
// x86-64 code and __morestack leave them, copied to a "new" one, and
// relocated with a fake frame lookup.
#include "core/relocate.h"
#include "test_maps.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

using namespace copystack_rt;

namespace {

constexpr uintptr_t kTerminal = 0x1000;
constexpr uintptr_t kRaIntoInner = 0x2000; // return address into frame 1
constexpr uintptr_t kRaIntoOuter = 0x3000; // return address into frame 2

class FakeLookup : public FrameLookup {
public:
  std::map<uintptr_t, const FrameInfo *> frames;
  const FrameInfo *call_site(uintptr_t ra, const char **why) override {
    auto it = frames.find(ra);
    if (it == frames.end()) {
      *why = "unknown return address";
      return nullptr;
    }
    return it->second;
  }
};

// Frame 2 (outermost): a 3-word object whose words 0 and 2 are pointers,
// its offset from the map's resolver.
const copystack_object outer_objects[] = {
    {0, 24, 0, COPYSTACK_OBJ_BITMAP, COPYSTACK_OBJF_ESCAPED},
};
const uint64_t outer_bitmaps[] = {0b101};
void outer_resolve(int32_t *out) { out[0] = -32; }
copystack_frame_map outer_map;

// Frame 1: a 2-word conservative object and a no-pointer integer; rbx is
// saved at CFA-24.
const copystack_object inner_objects[] = {
    {0, 16, 0, COPYSTACK_OBJ_ALL_WORDS, COPYSTACK_OBJF_ESCAPED},
    {0, 8, 0, COPYSTACK_OBJ_NO_POINTERS, COPYSTACK_OBJF_ESCAPED},
};
void inner_resolve(int32_t *out) {
  out[0] = -48;
  out[1] = -64;
}
copystack_frame_map inner_map;

// The asking function: pointer in rdi only; one pointer stack argument.
const copystack_object asker_objects[] = {
    {16, 8, 0, COPYSTACK_OBJ_BITMAP, COPYSTACK_OBJF_ARGUMENT},
};
const uint64_t asker_bitmaps[] = {1};
copystack_frame_map asker_map;

template <class Base = ::testing::Test> struct TwoStacks : Base {
  Stack old_stack = allocate_stack(4096);
  Stack new_stack = allocate_stack(8192);
  FakeLookup lookup;

  uintptr_t &at_old(uintptr_t a) { return *reinterpret_cast<uintptr_t *>(a); }
  uintptr_t moved(uintptr_t a) { return a - old_stack.hi + new_stack.hi; }
  uintptr_t &at_new(uintptr_t a) {
    return *reinterpret_cast<uintptr_t *>(moved(a));
  }
  void TearDown() override {
    release_stack(old_stack);
    release_stack(new_stack);
  }

  // A relocator that has copied the old stack's used bytes, [regs, its
  // top), from src (regs itself, or a saved copy of them ending at src_hi)
  // to the new stack's top, over garbage (a word the walk reads before it
  // was copied shows); chunk 0: the copy's default chunk.
  Relocator copied(uintptr_t regs, bool verify, size_t chunk, uintptr_t src,
                   uintptr_t src_hi = 0) {
    size_t used = old_stack.hi - regs;
    memset(reinterpret_cast<void *>(new_stack.lo), 0x5a, new_stack.size());
    Relocator rel(old_stack, new_stack, lookup, kTerminal, src_hi);
    if (verify)
      rel.enable_verify(moved(regs));
    if (chunk)
      rel.set_copy_chunk(chunk);
    rel.copy(new_stack.hi - used, src, used);
    return rel;
  }

  // Copies [regs, the old stack's top) and walks from the return address
  // at ra_slot; chunk 0: the copy's default chunk.
  Relocator walk(uintptr_t regs, uintptr_t ra_slot, bool verify,
                 size_t chunk) {
    Relocator rel = copied(regs, verify, chunk, regs);
    WalkStart ws;
    ws.regs.rbp = &at_new(regs);
    ws.ra_slot = &at_new(ra_slot);
    ws.known_lo = moved(regs);
    ws.known_hi = moved(ra_slot);
    rel.run(ws);
    return rel;
  }
};

struct Fixture : TwoStacks<> {
  FrameInfo outer_info, inner_info;

  // Old-stack layout, top down. Offsets from old.hi.
  uintptr_t rbp2 = 0, rbp1 = 0, ra_slot = 0, regs = 0;

  void SetUp() override {
    copystack_test::fill_map(outer_map, {"outer", outer_resolve, outer_objects,
                                         outer_bitmaps, 1, 1, 0, 0});
    copystack_test::fill_map(inner_map, {"inner", inner_resolve, inner_objects,
                                         nullptr, 2, 2, 0, 0});
    copystack_test::fill_map(asker_map,
                             {"asker", nullptr, asker_objects, asker_bitmaps,
                              1, 0, 1u << COPYSTACK_GPR_RDI, 8});
    outer_info.map = &outer_map;
    inner_info.map = &inner_map;
    flatten_words(outer_info);
    flatten_words(inner_info);
    lookup.frames[kRaIntoInner] = &inner_info;
    lookup.frames[kRaIntoOuter] = &outer_info;

    uintptr_t hi = old_stack.hi;
    memset(reinterpret_cast<void *>(old_stack.lo), 0, old_stack.size());
    rbp2 = hi - 64;
    at_old(rbp2) = 0;               // saved rbp of the task's first frame
    at_old(rbp2 + 8) = kTerminal;   // its return address
    at_old(rbp2 - 32) = hi - 100;   // pointer word
    at_old(rbp2 - 24) = hi - 200;   // integer word holding a stack address
    at_old(rbp2 - 16) = hi - 300;   // pointer word
    rbp1 = rbp2 - 128;
    at_old(rbp1) = rbp2;            // saved rbp
    at_old(rbp1 + 8) = kRaIntoOuter;
    at_old(rbp1 - 8) = hi - 400;    // rbx saved by frame 1 (CFA-24)
    at_old(rbp1 - 48) = hi - 500;   // conservative object: stack address
    at_old(rbp1 - 40) = 12345;      //   and a small integer
    at_old(rbp1 - 64) = hi - 600;   // known non-pointer
    at_old(rbp1 - 72) = hi - 700;   // undescribed word: a spill slot
    at_old(hi - 16) = hi - 750;     // above every frame: verify reports it
    ra_slot = rbp1 - 112;           // the asking function's return address
    at_old(ra_slot) = kRaIntoInner;
    at_old(ra_slot + 8) = hi - 800; // its stack argument (a pointer)
    regs = ra_slot - 8 * 10;        // a register block below
    at_old(regs + 0) = hi - 900;    // rdi: pointer argument
    at_old(regs + 8) = hi - 901;    // rsi: an integer argument
    at_old(regs + 16) = hi - 902;   // r14: callee-saved, range-checked
    at_old(regs + 24) = rbp1;       // rbp
    at_old(regs + 32) = 0x7;        // r12: not an address
  }

  // saved: relocate from a copy of the used bytes (a compacted task's
  // block), the old stack meanwhile overwritten (handed to another task).
  std::vector<uintptr_t> saved;

  Relocator relocate(bool verify, bool from_saved = false, size_t chunk = 0) {
    size_t used = old_stack.hi - regs;
    uintptr_t src = regs, src_hi = 0;
    if (from_saved) {
      saved.resize(used / 8);
      memcpy(saved.data(), reinterpret_cast<void *>(regs), used);
      memset(reinterpret_cast<void *>(old_stack.lo), 0xa5, old_stack.size());
      src = reinterpret_cast<uintptr_t>(saved.data());
      src_hi = src + used;
    }
    Relocator rel = copied(regs, verify, chunk, src, src_hi);
    WalkStart ws;
    ws.regs.arg[kRdi] = &at_new(regs + 0);
    ws.regs.arg[kRsi] = &at_new(regs + 8);
    ws.regs.csr[kR14] = &at_new(regs + 16);
    ws.regs.rbp = &at_new(regs + 24);
    ws.regs.csr[kR12] = &at_new(regs + 32);
    ws.asker = &asker_map;
    ws.asker_cfa = moved(ra_slot + 8);
    ws.asker_arg_bytes = 8;
    ws.ra_slot = &at_new(ra_slot);
    ws.known_lo = moved(regs);
    ws.known_hi = moved(ra_slot);
    rel.run(ws);
    return rel;
  }

  void expect_relocated(const Relocator &rel) {
    uintptr_t hi = old_stack.hi;
    // Registers: the pointer argument moves, the integer argument does not,
    // callee-saved registers and rbp are range-checked.
    EXPECT_EQ(at_new(regs + 0), moved(hi - 900));
    EXPECT_EQ(at_new(regs + 8), hi - 901);
    EXPECT_EQ(at_new(regs + 16), moved(hi - 902));
    EXPECT_EQ(at_new(regs + 24), moved(rbp1));
    EXPECT_EQ(at_new(regs + 32), 0x7u);
    // The asking function's stack argument.
    EXPECT_EQ(at_new(ra_slot + 8), moved(hi - 800));
    // Frame 1: saved rbp, saved rbx, the conservative object; the integer
    // object keeps its old-stack value.
    EXPECT_EQ(at_new(rbp1), moved(rbp2));
    EXPECT_EQ(at_new(rbp1 - 8), moved(hi - 400));
    EXPECT_EQ(at_new(rbp1 - 48), moved(hi - 500));
    EXPECT_EQ(at_new(rbp1 - 40), 12345u);
    EXPECT_EQ(at_new(rbp1 - 64), hi - 600);
    // An undescribed word of the frame (what the register allocator spills)
    // is range-checked like a callee-saved register.
    EXPECT_EQ(at_new(rbp1 - 72), moved(hi - 700));
    // Above the task's first frame: no frame's word, range-checked by the
    // copy like every word no map knows to be an integer.
    EXPECT_EQ(at_new(hi - 16), moved(hi - 750));
    // Frame 2: words 0 and 2 of the bitmap object; word 1 is an integer.
    EXPECT_EQ(at_new(rbp2 - 32), moved(hi - 100));
    EXPECT_EQ(at_new(rbp2 - 24), hi - 200);
    EXPECT_EQ(at_new(rbp2 - 16), moved(hi - 300));
    EXPECT_EQ(at_new(rbp2), 0u);
    // Return addresses are code, never touched.
    EXPECT_EQ(at_new(ra_slot), kRaIntoInner);
    EXPECT_EQ(rel.frames(), 2u);
    EXPECT_EQ(rel.adjusted(), 11u);
  }
};

TEST_F(Fixture, RewritesEveryWordNotKnownToBeAnInteger) {
  Relocator rel = relocate(false);
  expect_relocated(rel);
}

// A compacted task's frames come back from its block: the same words move,
// and the words put back come from the block, not from the old stack
// (which another task may own by then).
TEST_F(Fixture, RelocatesFromASavedCopy) {
  Relocator rel = relocate(false, true);
  expect_relocated(rel);
}

// The copy runs a chunk ahead of the walk; with a chunk of one word, every
// word the walk reads or puts back must have been copied first (a word read
// before its copy would be the new stack's garbage, a word put back before
// it would be overwritten by the copy).
TEST_F(Fixture, CopyingAWordAtATimeAheadOfTheWalk) {
  Relocator rel = relocate(false, false, 8);
  expect_relocated(rel);
  Relocator saved = relocate(false, true, 8);
  expect_relocated(saved);
}

TEST_F(Fixture, VerifyReportsAnOldAddressOutsideEveryFrame) {
  testing::internal::CaptureStderr();
  Relocator rel = relocate(true);
  unsigned reports = rel.report_unrelocated();
  std::string err = testing::internal::GetCapturedStderr();
  // Every word of both frames was examined (the integer words at outer-24
  // and inner-64 are described as non-pointers), the integer argument in
  // rsi lies in the register block the runtime itself wrote: only the word
  // above the task's first frame is left.
  EXPECT_EQ(reports, 1u) << err;
  EXPECT_NE(err.find("(outside any frame)"), std::string::npos) << err;
}

TEST_F(Fixture, UnknownReturnAddressIsFatal) {
  lookup.frames.erase(kRaIntoOuter);
  EXPECT_DEATH(relocate(false), "stack walk: return address 0x3000");
}

// An old stack laid out by hand and the new one it is copied to, for the
// fixtures below: the register block holds %rbp alone, at its bottom.
// Frames without a frame pointer (functions whose maps describe no locals,
// compiled as plain clang -O2 does): each is found by its CFA rule, a fixed
// distance above its callee's CFA, and %rbp is followed through them as
// the unwind tables say. Top down: C keeps a frame pointer and an integer
// local at %rbp - 8; B (no frame pointer) leaves %rbp alone; A (no frame
// pointer) saved its caller's %rbp at CFA - 16 and uses %rbp for a stack
// address of its own; the asking function was called by A.
struct FramePointerFree : TwoStacks<> {
  static constexpr uintptr_t kRaIntoA = 0x4000, kRaIntoB = 0x5000,
                             kRaIntoC = 0x6000;
  // Static, as real maps are: their fields are 32-bit offsets to the
  // name and the resolver, out of reach from a heap-allocated fixture
  // (ThreadSanitizer's heap is far from the code).
  static inline copystack_frame_map a_map, b_map, c_map;
  FrameInfo a, b, c;
  static inline const copystack_object c_objects[] = {
      {0, 8, 0, COPYSTACK_OBJ_NO_POINTERS, COPYSTACK_OBJF_ESCAPED},
  };
  static void c_resolve(int32_t *out) { out[0] = -8; }
  uintptr_t hi = 0, rbp_c = 0, cfa_b = 0, cfa_a = 0, ra_slot = 0, regs = 0;

  void SetUp() override {
    copystack_test::fill_map(a_map, {"a", nullptr, nullptr, nullptr, 0, 0, 0,
                                     0});
    copystack_test::fill_map(b_map, {"b", nullptr, nullptr, nullptr, 0, 0, 0,
                                     0});
    copystack_test::fill_map(c_map,
                             {"c", c_resolve, c_objects, nullptr, 1, 1, 0, 0});
    a.map = &a_map, b.map = &b_map, c.map = &c_map;
    flatten_words(a), flatten_words(b), flatten_words(c);
    hi = old_stack.hi;
    rbp_c = hi - 64;
    cfa_b = rbp_c - 16; // C's %rsp at its call of B
    cfa_a = cfa_b - 32;
    ra_slot = cfa_a - 48;
    regs = ra_slot - 16;
    b.sp_cfa = 32;
    a.sp_cfa = static_cast<uint32_t>(cfa_a - (ra_slot + 8));
    a.rbp_slot = -16;
    lookup.frames[kRaIntoA] = &a;
    lookup.frames[kRaIntoB] = &b;
    lookup.frames[kRaIntoC] = &c;

    memset(reinterpret_cast<void *>(old_stack.lo), 0, old_stack.size());
    at_old(rbp_c) = 0;             // the task's first frame
    at_old(rbp_c + 8) = kTerminal;
    at_old(rbp_c - 8) = hi - 200;  // C's integer local: stays
    at_old(cfa_b - 8) = kRaIntoC;  // B's return address
    at_old(cfa_b - 16) = hi - 300; // B's spill: range-checked
    at_old(cfa_a - 8) = kRaIntoB;
    at_old(cfa_a - 16) = rbp_c;    // A saved C's %rbp (B left it alone)
    at_old(cfa_a - 24) = hi - 400; // A's spill
    at_old(ra_slot) = kRaIntoA;
    at_old(regs) = hi - 950;       // %rbp: A's own stack address
  }

  Relocator relocate(bool verify) { return walk(regs, ra_slot, verify, 8); }
};

TEST_F(FramePointerFree, WalksByTheCfaRules) {
  Relocator rel = relocate(false);
  EXPECT_EQ(rel.frames(), 3u);
  EXPECT_EQ(at_new(rbp_c - 8), hi - 200); // C found: its integer put back
  EXPECT_EQ(at_new(cfa_b - 16), moved(hi - 300));
  EXPECT_EQ(at_new(cfa_a - 16), moved(rbp_c));
  EXPECT_EQ(at_new(cfa_a - 24), moved(hi - 400));
  EXPECT_EQ(at_new(regs), moved(hi - 950));
  EXPECT_EQ(at_new(cfa_a - 8), kRaIntoB);
}

TEST_F(FramePointerFree, VerifySeesEveryWordOwned) {
  testing::internal::CaptureStderr();
  Relocator rel = relocate(true);
  unsigned reports = rel.report_unrelocated();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(reports, 0u) << err;
  EXPECT_EQ(rel.frames(), 3u);
}

// The %rbp chain alone would take A's own %rbp for a frame pointer.
TEST_F(FramePointerFree, ARuleSaysWhereTheCallersFramePointerIs) {
  a.rbp_slot = 0;
  EXPECT_DEATH(relocate(false), "a frame pointer is out of order");
}

// A recursion: kDepth frames of R, each returning into R's own call site
// (the walk's loop for frames that repeat a call site and need nothing but
// the step), under T, whose integer local the walk must still put back.
// R keeps a frame pointer (its callers' %rbp saved at %rbp) or has none
// (its frame found 48 bytes above its callee's, %rbp left alone); either
// way each R frame holds a spill with a stack address.
struct Recursion : TwoStacks<::testing::TestWithParam<bool>> {
  static constexpr uintptr_t kRaIntoR = 0x7000, kRaIntoT = 0x8000;
  static constexpr int kDepth = 6;
  static constexpr uintptr_t kFrame = 48; // CFA - %rsp at R's call
  static inline copystack_frame_map r_map, t_map;
  FrameInfo r, t;
  static inline const copystack_object t_objects[] = {
      {0, 8, 0, COPYSTACK_OBJ_NO_POINTERS, COPYSTACK_OBJF_ESCAPED},
  };
  static void t_resolve(int32_t *out) { out[0] = -8; }
  uintptr_t hi = 0, rbp_t = 0, cfa[kDepth] = {}, ra_slot = 0, regs = 0;

  bool fp() const { return GetParam(); }

  void SetUp() override {
    copystack_test::fill_map(r_map, {"r", nullptr, nullptr, nullptr, 0, 0, 0,
                                     0});
    copystack_test::fill_map(t_map,
                             {"t", t_resolve, t_objects, nullptr, 1, 1, 0, 0});
    r.map = &r_map, t.map = &t_map;
    flatten_words(r), flatten_words(t);
    if (!fp())
      r.sp_cfa = kFrame;
    lookup.frames[kRaIntoR] = &r;
    lookup.frames[kRaIntoT] = &t;

    hi = old_stack.hi;
    memset(reinterpret_cast<void *>(old_stack.lo), 0, old_stack.size());
    rbp_t = hi - 64;
    at_old(rbp_t) = 0; // the task's first frame
    at_old(rbp_t + 8) = kTerminal;
    at_old(rbp_t - 8) = hi - 200; // T's integer local: stays
    for (int i = 0; i < kDepth; ++i) {
      // R_0 outermost: its CFA is T's %rsp at the call.
      cfa[i] = i ? cfa[i - 1] - kFrame : rbp_t - 16;
      at_old(cfa[i] - 8) = i ? kRaIntoR : kRaIntoT;
      if (fp())
        at_old(cfa[i] - 16) = i ? cfa[i - 1] - 16 : rbp_t; // saved %rbp
      else
        at_old(cfa[i] - 16) = hi - 400 - 8 * i; // a spill
      at_old(cfa[i] - 24) = hi - 300 - 8 * i; // a spill
    }
    ra_slot = cfa[kDepth - 1] - kFrame - 8; // R_5 called the asker
    at_old(ra_slot) = kRaIntoR;
    regs = ra_slot - 16;
    at_old(regs) = fp() ? cfa[kDepth - 1] - 16 : rbp_t; // %rbp
  }

  Relocator relocate(bool verify, size_t chunk) {
    return walk(regs, ra_slot, verify, chunk);
  }

  void expect_relocated(const Relocator &rel) {
    EXPECT_EQ(rel.frames(), unsigned(kDepth + 1));
    EXPECT_EQ(at_new(rbp_t - 8), hi - 200); // T found: its integer put back
    for (int i = 0; i < kDepth; ++i) {
      EXPECT_EQ(at_new(cfa[i] - 8), i ? kRaIntoR : kRaIntoT);
      EXPECT_EQ(at_new(cfa[i] - 16),
                moved(fp() ? (i ? cfa[i - 1] - 16 : rbp_t)
                           : hi - 400 - 8 * i));
      EXPECT_EQ(at_new(cfa[i] - 24), moved(hi - 300 - 8 * i));
    }
    EXPECT_EQ(at_new(regs), moved(fp() ? cfa[kDepth - 1] - 16 : rbp_t));
  }
};

TEST_P(Recursion, StepsEveryFrameOfTheSameCallSite) {
  expect_relocated(relocate(false, 0));
  // The copy a word ahead of the walk: each frame's link is read after its
  // copy.
  expect_relocated(relocate(false, 8));
}

TEST_P(Recursion, VerifySeesEveryWordOwned) {
  testing::internal::CaptureStderr();
  Relocator rel = relocate(true, 8);
  unsigned reports = rel.report_unrelocated();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(reports, 0u) << err;
  expect_relocated(rel);
}

// A broken link in the middle of the recursion is caught there too.
TEST_P(Recursion, ABrokenLinkInTheRecursionIsFatal) {
  if (fp()) {
    at_old(cfa[2] - 16) = cfa[2] - 16 - 8 * 64; // points below its frame
    EXPECT_DEATH(relocate(false, 0), "a frame pointer is out of order");
  } else {
    // T's and the word above it read as returns into R: the recursion's
    // rule then finds a CFA above the stack.
    at_old(cfa[0] - 8) = kRaIntoR;
    at_old(cfa[0] + kFrame - 8) = kRaIntoR;
    EXPECT_DEATH(relocate(false, 0), "lies above the stack");
  }
}

INSTANTIATE_TEST_SUITE_P(FramePointers, Recursion, ::testing::Bool(),
                         [](const auto &info) {
                           return info.param ? "WithFramePointers"
                                             : "WithoutFramePointers";
                         });

} // namespace

// The stack copy has one variant per vector unit (platform/cpu.h); each
// one this machine can execute must rewrite exactly the words inside the
// old range, at every length and alignment the loop's tail handling meets.
TEST(CopyVariants, EverySupportedVariantRewritesTheSameWords) {
  using copystack_rt::CpuVariant;
  const uintptr_t lo = 0x7f0000010000, size = 0x4000;
  const intptr_t delta = 0x30000;
  std::vector<uintptr_t> from(1031), want(1031), got(1031);
  uint64_t state = 88172645463325252ull;
  for (uintptr_t &w : from) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    switch (state % 5) {
    case 0: w = lo + (state >> 8) % size; break;   // inside
    case 1: w = lo - 1 - (state >> 8) % 64; break; // just below
    case 2: w = lo + size + (state >> 8) % 64; break; // at the top and above
    case 3: w = lo + size - 1; break;              // the last byte inside
    default: w = state; break;
    }
  }
  int ran = 0;
  for (CpuVariant v : {CpuVariant::kBaseline, CpuVariant::kAvx2,
                       CpuVariant::kAvx512f}) {
    if (!copystack_rt::cpu_supports(v))
      continue;
    ++ran;
    for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(9),
                     size_t(31), size_t(1031)}) {
      uint64_t count = 0;
      for (size_t i = 0; i < n; ++i) {
        bool in = from[i] - lo < size;
        want[i] = in ? from[i] + delta : from[i];
        count += in;
      }
      std::fill(got.begin(), got.end(), 0);
      EXPECT_EQ(copystack_rt::Relocator::copy_run_as(v, got.data(),
                                                     from.data(), n, lo, size,
                                                     delta),
                count)
          << copystack_rt::cpu_variant_name(v) << " n=" << n;
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], want[i])
            << copystack_rt::cpu_variant_name(v) << " word " << i;
    }
  }
  EXPECT_GE(ran, 1);
}
