// Units of stack_alloc.cc: power-of-two stacks, accounting, reuse.
#include "core/stack_alloc.h"

#include "copystack/abi.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

#include <sys/mman.h>

using namespace copystack_rt;

TEST(StackAlloc, RoundsToPowersOfTwoFromTheMinimum) {
  EXPECT_EQ(round_stack_size(1), size_t(COPYSTACK_MIN_STACK));
  EXPECT_EQ(round_stack_size(2048), 2048u);
  EXPECT_EQ(round_stack_size(2049), 4096u);
  EXPECT_EQ(round_stack_size(100000), 131072u);
}

TEST(StackAlloc, SmallStacksAreDistinctAlignedAndWritable) {
  std::vector<Stack> stacks;
  std::set<uintptr_t> los;
  for (int i = 0; i < 300; ++i) {
    Stack s = allocate_stack(2048);
    ASSERT_EQ(s.size(), 2048u);
    ASSERT_EQ(s.lo % 16, 0u) << "stacks are 16-byte aligned";
    memset(reinterpret_cast<void *>(s.lo), 0xab, s.size());
    EXPECT_TRUE(los.insert(s.lo).second) << "no stack handed out twice";
    stacks.push_back(s);
  }
  for (Stack s : stacks)
    release_stack(s);
}

TEST(StackAlloc, AccountsBytesInUse) {
  uint64_t before = stack_bytes_inuse();
  Stack a = allocate_stack(4096);
  Stack b = allocate_stack(1 << 20);
  EXPECT_EQ(stack_bytes_inuse(), before + 4096 + (1 << 20));
  EXPECT_GE(stack_bytes_sys(), stack_bytes_inuse());
  release_stack(a);
  release_stack(b);
  EXPECT_EQ(stack_bytes_inuse(), before);
}

TEST(StackAlloc, LargeStacksAreCachedForReuse) {
  Stack a = allocate_stack(1 << 20);
  uintptr_t lo = a.lo;
  uint64_t sys = stack_bytes_sys();
  release_stack(a);
  EXPECT_EQ(stack_bytes_sys(), sys) << "kept mapped for the next task";
  Stack b = allocate_stack(1 << 20);
  EXPECT_EQ(b.lo, lo);
  release_stack(b);
}

TEST(StackAlloc, StacksBeyondTheCacheGoBackToTheOS) {
  uint64_t sys = stack_bytes_sys();
  Stack big = allocate_stack(size_t(128) << 20);
  EXPECT_EQ(stack_bytes_sys(), sys + (size_t(128) << 20));
  release_stack(big);
  EXPECT_EQ(stack_bytes_sys(), sys);
}

TEST(StackAlloc, ReleasedSmallStacksAreReused) {
  Stack a = allocate_stack(8192);
  uintptr_t lo = a.lo;
  release_stack(a);
  Stack b = allocate_stack(8192);
  EXPECT_EQ(b.lo, lo);
  release_stack(b);
}

// A stack that replaces another has its top at the same address modulo
// 64 KiB, for every size (pooled and large) and every placement, so that a
// move never changes the low 16 bits of a word (stack_alloc.h).
TEST(StackAlloc, ReplacementsKeepTheTopModulo64KiB) {
  std::vector<Stack> held;
  for (size_t size = COPYSTACK_MIN_STACK; size <= (size_t(1) << 20);
       size <<= 1) {
    for (uintptr_t r = 0; r < kMoveAlign; r += COPYSTACK_MIN_STACK) {
      uintptr_t like = (uintptr_t(0x7f1234) << 16) + r;
      Stack s = allocate_stack(size, like);
      ASSERT_EQ(s.size(), size);
      ASSERT_EQ((s.hi - like) & (kMoveAlign - 1), 0u)
          << "size " << size << " residue " << r;
      // Writable from end to end.
      memset(reinterpret_cast<void *>(s.lo), 0x5a, s.size());
      held.push_back(s);
    }
  }
  std::set<uintptr_t> los;
  for (size_t i = 0; i < held.size(); ++i)
    EXPECT_TRUE(los.insert(held[i].lo).second) << "no stack handed out twice";
  for (Stack s : held)
    release_stack(s);
  // Released ones serve the same placements again (from the caches).
  for (uintptr_t r = 0; r < kMoveAlign; r += 5 * COPYSTACK_MIN_STACK) {
    Stack s = allocate_stack(8192, r + kMoveAlign);
    EXPECT_EQ((s.hi - r) & (kMoveAlign - 1), 0u);
    release_stack(s);
  }
}

TEST(StackAlloc, ScavengedStacksKeepTheirPlacement) {
  std::vector<Stack> held;
  for (uintptr_t r = 0; r < kMoveAlign; r += COPYSTACK_MIN_STACK)
    held.push_back(allocate_stack(16384, kMoveAlign + r));
  for (Stack s : held)
    release_stack(s, /*to_pool=*/true);
  uint64_t sys = stack_bytes_sys();
  EXPECT_GT(scavenge_stacks(), 0u);
  EXPECT_LT(stack_bytes_sys(), sys);
  for (uintptr_t r = 0; r < kMoveAlign; r += COPYSTACK_MIN_STACK) {
    Stack s = allocate_stack(16384, kMoveAlign + r);
    EXPECT_EQ((s.hi - r) & (kMoveAlign - 1), 0u);
    memset(reinterpret_cast<void *>(s.lo), 1, s.size());
    release_stack(s);
  }
}

namespace {
int mappings() {
  FILE *f = fopen("/proc/self/maps", "r");
  int n = 0;
  for (int ch; (ch = fgetc(f)) != EOF;)
    n += ch == '\n';
  fclose(f);
  return n;
}
// Pages of [lo, hi) resident now.
int resident_pages(uintptr_t lo, uintptr_t hi) {
  lo &= ~uintptr_t(4095);
  hi = (hi + 4095) & ~uintptr_t(4095);
  std::vector<unsigned char> v((hi - lo) / 4096);
  if (mincore(reinterpret_cast<void *>(lo), hi - lo, v.data()) != 0)
    return -1;
  int n = 0;
  for (unsigned char b : v)
    n += b & 1;
  return n;
}
bool all_zero(Stack s) {
  for (uintptr_t a = s.lo; a < s.hi; a += sizeof(uint64_t))
    if (*reinterpret_cast<uint64_t *>(a))
      return false;
  return true;
}
} // namespace

// Each large stack is a slot in a shared mapping: tens of thousands of
// 128 KiB stacks must not use up the process's mappings (65,530 by
// default), whose exhaustion stops thread creation and every mmap.
TEST(StackAlloc, LargeStacksShareMappings) {
  int before = mappings();
  std::vector<Stack> held;
  for (int i = 0; i < 4000; ++i) {
    // Every placement, as growths ask for them.
    Stack s = allocate_stack(size_t(128) << 10,
                             kMoveAlign + (i % 32) * COPYSTACK_MIN_STACK);
    *reinterpret_cast<volatile char *>(s.hi - 1) = 1;
    *reinterpret_cast<volatile char *>(s.lo) = 1;
    held.push_back(s);
  }
  EXPECT_LT(mappings() - before, 100) << "4,000 stacks of 128 KiB";
  std::set<uintptr_t> los;
  for (Stack s : held)
    EXPECT_TRUE(los.insert(s.lo).second) << "no stack handed out twice";
  for (Stack s : held)
    release_stack(s);
  // Releases past the cache give memory back without splitting a mapping.
  EXPECT_LT(mappings() - before, 100) << "after their release";
  scavenge_stacks();
  EXPECT_LT(mappings() - before, 100) << "after a scavenge";
}

// A large stack released past the cache, or scavenged from it, keeps its
// slot: its memory goes back to the OS (it reads as zeros when handed out
// again) and the accounting says so.
TEST(StackAlloc, ReleasedLargeSlotsAreReusedZeroed) {
  size_t size = size_t(128) << 20; // past the 64 MiB cache on its own
  Stack a = allocate_stack(size);
  uint64_t sys = stack_bytes_sys(), released = stack_bytes_released();
  memset(reinterpret_cast<void *>(a.hi - 8192), 0x77, 8192);
  release_stack(a);
  EXPECT_EQ(stack_bytes_sys(), sys - size);
  EXPECT_EQ(stack_bytes_released(), released + size);
  Stack b = allocate_stack(size);
  EXPECT_EQ(b.lo, a.lo) << "the slot is reused";
  EXPECT_EQ(stack_bytes_sys(), sys);
  EXPECT_EQ(stack_bytes_released(), released);
  EXPECT_TRUE(all_zero(Stack{b.hi - 8192, b.hi}));
  release_stack(b);

  Stack c = allocate_stack(size_t(1) << 20);
  memset(reinterpret_cast<void *>(c.lo), 0x77, c.size());
  release_stack(c); // cached, memory kept
  uint64_t kept = stack_bytes_sys();
  EXPECT_GE(scavenge_stacks(), size_t(1) << 20);
  EXPECT_LE(stack_bytes_sys(), kept - (size_t(1) << 20));
  Stack d = allocate_stack(size_t(1) << 20, c.hi);
  EXPECT_EQ(d.lo, c.lo) << "the scavenged slot is reused";
  EXPECT_TRUE(all_zero(d));
  release_stack(d);
}

// A stack placed 2 KiB off a page boundary (a task spawned on the lower
// half of a page keeps that placement as it grows) shares its end pages
// with its neighbours: a scavenge gives such pages back once both
// neighbours are free, and stack_sys drops and rises by exactly what went
// back and came back. (Giving back only the pages wholly inside each stack
// left a page per shrink per task resident: 2,000 tasks shrunk from 16 to
// 2 KiB held 18 KiB each.)
TEST(StackAlloc, ScavengeGivesBackPagesNeighboursShare) {
  const size_t size = 16384;
  const int n = 64;
  std::vector<Stack> held;
  for (int i = 0; i < n; ++i) {
    Stack s = allocate_stack(size, kMoveAlign + COPYSTACK_MIN_STACK);
    ASSERT_NE(s.lo % 4096, 0u) << "placed off a page boundary";
    memset(reinterpret_cast<void *>(s.lo), 0x33, size);
    held.push_back(s);
  }
  for (Stack s : held)
    release_stack(s, /*to_pool=*/true);
  uint64_t sys = stack_bytes_sys();
  uint64_t freed = scavenge_stacks();
  EXPECT_GE(freed, n * size);
  EXPECT_EQ(stack_bytes_sys(), sys - freed);
  // Every page they touched went back, but for the end pages of a run of
  // neighbours that a stack in use shares (a few: chunks' ends).
  int resident = 0;
  for (Stack s : held)
    resident += resident_pages(s.lo, s.hi);
  EXPECT_LE(resident, 8);
  // Handed out again, zeroed (but for the end pages of each run);
  // released and scavenged again, the same.
  held.clear();
  int zeroed = 0;
  for (int i = 0; i < n; ++i) {
    Stack s = allocate_stack(size, kMoveAlign + COPYSTACK_MIN_STACK);
    zeroed += all_zero(Stack{s.lo + 2048, s.hi - 2048});
    memset(reinterpret_cast<void *>(s.lo), 0x44, size);
    held.push_back(s);
  }
  EXPECT_GE(zeroed, n - 8);
  uint64_t sys_used = stack_bytes_sys();
  for (Stack s : held)
    release_stack(s, /*to_pool=*/true);
  uint64_t freed2 = scavenge_stacks();
  EXPECT_EQ(stack_bytes_sys(), sys_used - freed2);
  EXPECT_GE(freed2, n * size);
  // Their neighbours this time are released stacks, not free ones: the
  // pages they share go back all the same.
  resident = 0;
  for (Stack s : held)
    resident += resident_pages(s.lo, s.hi);
  EXPECT_LE(resident, 8);
}
