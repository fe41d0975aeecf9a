// The AArch64 decoder of the code before a check (arch/aarch64/prologue.h),
// on instruction words assembled by binutils-aarch64-linux-gnu: what it
// proves stored nowhere below a frame's top, and what it refuses to guess.
#include "arch/aarch64/prologue.h"

#include <gtest/gtest.h>

#include <vector>

using namespace copystack_rt::a64;

namespace {

PrologueStores scan(const std::vector<uint32_t> &code) {
  return scan_prologue(code.data(), code.size());
}

// jansson's run_tests at -O0, as the drivers built it: a 7,600-byte frame
// of spills whose code before the check stores only at its top (the
// frame record, x28, and two words below the record).
TEST(Prologue, BigO0FrameStoresOnlyAtItsTop) {
  const std::vector<uint32_t> code = {
      0xa9be7bfd, // stp x29, x30, [sp, #-32]!
      0xf9000bfc, // str x28, [sp, #16]
      0x910003fd, // mov x29, sp
      0xd14007ff, // sub sp, sp, #1, lsl #12
      0xd13643ff, // sub sp, sp, #0xd90
      0xd28c6d68, // mov x8, #0x636b
      0xf2af2e08, // movk x8, #0x7970, lsl #16
      0xf2ce8e68, // movk x8, #0x7473, lsl #32
      0xf2ed6c28, // movk x8, #0x6b61, lsl #48
      0xf81d83a8, // stur x8, [x29, #-40]
      0xd28f4468, // mov x8, #0x7a23
      0xf2a00108, // movk x8, #0x8, lsl #16
      0xf81e03a8, // stur x8, [x29, #-32]
  };
  PrologueStores ps = scan(code);
  ASSERT_TRUE(ps.known) << ps.why;
  EXPECT_EQ(ps.sp_at_end, -7600);
  EXPECT_TRUE(ps.stored);
  EXPECT_EQ(ps.lowest, -72);
}

// -O2's shape: the frame taken first, the record stored at its top.
TEST(Prologue, FrameTakenThenRecordStored) {
  const std::vector<uint32_t> code = {
      0xd10083ff, // sub sp, sp, #32
      0xa9017bfd, // stp x29, x30, [sp, #16]
      0x910043fd, // add x29, sp, #16
      0x6f00e400, // movi v0.2d, #0
      0x52800048, // mov w8, #2
      0xd503245f, // bti c
  };
  PrologueStores ps = scan(code);
  ASSERT_TRUE(ps.known) << ps.why;
  EXPECT_EQ(ps.sp_at_end, -32);
  EXPECT_EQ(ps.lowest, -16);
}

TEST(Prologue, NothingStored) {
  PrologueStores ps = scan({0xd14007ff}); // sub sp, sp, #1, lsl #12
  ASSERT_TRUE(ps.known);
  EXPECT_EQ(ps.sp_at_end, -4096);
  EXPECT_FALSE(ps.stored);
}

// Vector stores scale by 16; a prefetch stores nothing; compares and
// tests write the zero register, not sp; a vector register numbered 29
// leaves x29 known.
TEST(Prologue, VectorsPrefetchesAndCompares) {
  const std::vector<uint32_t> code = {
      0xadbe07e0, // stp q0, q1, [sp, #-64]!
      0x3d800be0, // str q0, [sp, #32]
      0xf98007e0, // prfm pldl1keep, [sp, #8]
      0xeb01001f, // cmp x0, x1
      0xf240001f, // tst x0, #1
      0x6f00e41d, // movi v29.2d, #0
      0x910003fd, // mov x29, sp
      0x6f00e41d, // movi v29.2d, #0
      0xf81f83a1, // stur x1, [x29, #-8]
  };
  PrologueStores ps = scan(code);
  ASSERT_TRUE(ps.known) << ps.why;
  EXPECT_EQ(ps.sp_at_end, -64);
  EXPECT_TRUE(ps.stored);
  EXPECT_EQ(ps.lowest, -72);
}

// A spill at the frame's bottom before the check (-O0 did this before the
// arguments went through the check): found, to the byte.
TEST(Prologue, StoreAtTheFramesBottomIsSeen) {
  const std::vector<uint32_t> code = {
      0xa9ba7bfd, // stp x29, x30, [sp, #-96]!
      0xa9016ffc, // stp x28, x27, [sp, #16]
      0x6d0523e9, // stp d9, d8, [sp, #80]
      0xd14007ff, // sub sp, sp, #1, lsl #12
      0xf90007e0, // str x0, [sp, #8]
  };
  PrologueStores ps = scan(code);
  ASSERT_TRUE(ps.known) << ps.why;
  EXPECT_EQ(ps.sp_at_end, -96 - 4096);
  EXPECT_EQ(ps.lowest, -96 - 4096 + 8);
}

TEST(Prologue, StoresBelowSpAndThroughDerivedRegisters) {
  // stur x0, [sp, #-8] after sub sp, sp, #32
  PrologueStores ps = scan({0xd10083ff, 0xf81f83e0});
  ASSERT_TRUE(ps.known);
  EXPECT_EQ(ps.lowest, -40);
  // sub x9, sp, #16; str x0, [x9, #8]
  ps = scan({0xd10043e9, 0xf9000520});
  ASSERT_TRUE(ps.known);
  EXPECT_EQ(ps.lowest, -8);
  EXPECT_EQ(ps.sp_at_end, 0);
}

// Post-indexed loads move sp back up; the stack probe's store of xzr
// counts as a store.
TEST(Prologue, WritebackAndProbeStores) {
  PrologueStores ps = scan({0xa9be7bfd, 0xa8c17bfd}); // stp ...!; ldp ..., #16
  ASSERT_TRUE(ps.known);
  EXPECT_EQ(ps.sp_at_end, -16);
  ps = scan({0xd14007ff, 0xf90003ff}); // sub sp, #4096; str xzr, [sp]
  ASSERT_TRUE(ps.known);
  EXPECT_EQ(ps.lowest, -4096);
}

// What it does not model ends the scan unknown, at that instruction.
TEST(Prologue, UnmodelledCodeIsUnknown) {
  struct Case {
    uint32_t insn;
    const char *what;
  } cases[] = {
      {0x14000000, "b"},
      {0xf9000100, "str x0, [x8] (x8 not known)"},
      {0xf8216be0, "str x0, [sp, x1]"},
      {0xf82083e1, "swp x0, x1, [sp]"},
      {0xc8007fe1, "stxr w0, x1, [sp]"},
      {0x4c0073e0, "st1 {v0.16b}, [sp]"},
      {0xb240001f, "orr sp, x0, #1"},
      {0x8b21601f, "add sp, x0, x1"},
      {0x9adf101f, "irg sp, x0"},
      {0x9181041f, "addg sp, x0, #16, #1"},
  };
  for (const Case &c : cases) {
    PrologueStores ps = scan({0xd10083ff, c.insn}); // sub sp, sp, #32; ...
    EXPECT_FALSE(ps.known) << c.what;
    EXPECT_EQ(ps.stopped_at, 1u) << c.what;
    EXPECT_NE(ps.why, nullptr) << c.what;
  }
  // A register is known only while nothing else writes it.
  PrologueStores ps = scan({0xd10043e9, 0xaa0003e9, 0xf9000120});
  EXPECT_FALSE(ps.known); // sub x9, sp, #16; mov x9, x0; str x0, [x9]
  ps = scan({0x910003fd, 0xf94003fd, 0xf81f83a1});
  EXPECT_FALSE(ps.known); // mov x29, sp; ldr x29, [sp]; stur x1, [x29, #-8]
  ps = scan({0x910003fd, 0x4e083c1d, 0xf81f83a1});
  EXPECT_FALSE(ps.known); // ...; umov x29, v0.d[0]; stur x1, [x29, #-8]
  ps = scan({0x910003fd, 0x9e66001d, 0xf81f83a1});
  EXPECT_FALSE(ps.known); // ...; fmov x29, d0; stur x1, [x29, #-8]
  // A hint may write x30 (paciasp): a store through it is not known.
  ps = scan({0x910043fe /* add x30, sp, #16 */, 0xf90003c0});
  EXPECT_TRUE(ps.known); // str x0, [x30]
  ps = scan({0x910043fe, 0xd503233f /* paciasp */, 0xf90003c0});
  EXPECT_FALSE(ps.known);
  // mov sp, x0: sp set from a register not known.
  ps = scan({0x9100001f});
  EXPECT_FALSE(ps.known);
}

TEST(Prologue, OwnCheckRecognised) {
  const uint32_t check[] = {0xd53bd050, 0xf9400610, 0xeb3063ff, 0x54000068};
  EXPECT_TRUE(is_own_check(check));
  const uint32_t other[] = {0xd53bd050, 0xf9400610, 0xeb3063ff, 0x54000088};
  EXPECT_FALSE(is_own_check(other));
}

} // namespace
