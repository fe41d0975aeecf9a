// Units of frame_info.cc: finding and decoding a frame map through the
// 24-byte prefix the pass puts before an instrumented function.
#include "core/frame_info.h"
#include "test_maps.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace copystack_rt;

namespace {

// A fake instrumented function: prefix, then an entry; the map elsewhere.
struct FakeFunction {
  alignas(16) unsigned char code[32];
  uintptr_t entry() const {
    return reinterpret_cast<uintptr_t>(code + COPYSTACK_PREFIX_BYTES);
  }
};

// Two escaped objects (offsets from the resolver) and an argument object
// (a fixed offset), none of them pointers.
const copystack_object g_objects[3] = {
    {0, 8, 0, COPYSTACK_OBJ_NO_POINTERS, COPYSTACK_OBJF_ESCAPED},
    {0, 16, 0, COPYSTACK_OBJ_NO_POINTERS, COPYSTACK_OBJF_ESCAPED},
    {24, 8, 0, COPYSTACK_OBJ_NO_POINTERS, COPYSTACK_OBJF_ARGUMENT},
};
int g_resolve_calls;

void resolve(int32_t *out) {
  ++g_resolve_calls;
  out[0] = -24;
  out[1] = -64;
}

void install(FakeFunction &f, copystack_frame_map *map, uint32_t version) {
  int32_t rel = static_cast<int32_t>(reinterpret_cast<intptr_t>(map) -
                                     static_cast<intptr_t>(f.entry()));
  uint64_t magic = COPYSTACK_MAGIC, filler = COPYSTACK_PREFIX_FILLER;
  memcpy(f.code, &rel, 4);
  memcpy(f.code + 4, &version, 4);
  memcpy(f.code + 8, &magic, 8);
  memcpy(f.code + 16, &filler, 8);
  f.code[COPYSTACK_PREFIX_BYTES] = 0xc3;
}

void make_map(copystack_frame_map &m) {
  copystack_test::fill_map(m, {"fake", resolve, g_objects, nullptr, 3, 2, 0,
                               0});
}

} // namespace

TEST(FrameMap, MagicMarksInstrumentedCode) {
  static FakeFunction f;
  static copystack_frame_map map;
  make_map(map);
  install(f, &map, COPYSTACK_ABI_VERSION);
  EXPECT_TRUE(is_instrumented(reinterpret_cast<void *>(f.entry())));
  EXPECT_FALSE(is_instrumented(reinterpret_cast<void *>(f.entry() + 1)));
}

// The map is read-only: the escaped objects' offsets come from its
// resolver into the runtime's own description of the frame.
TEST(FrameMap, EscapedOffsetsComeFromTheResolver) {
  static FakeFunction f;
  static copystack_frame_map map;
  make_map(map);
  install(f, &map, COPYSTACK_ABI_VERSION);
  const copystack_frame_map *m = map_for_entry(f.entry());
  ASSERT_EQ(m, &map);
  EXPECT_STREQ(copystack_map_name(m), "fake");
  EXPECT_EQ(copystack_map_objects(m), g_objects);
  g_resolve_calls = 0;
  FrameInfo fi;
  fi.map = m;
  flatten_words(fi);
  EXPECT_EQ(g_resolve_calls, 1);
  // Words not pointers: -64 and -56 (object 1), -24 (object 0); not the
  // argument object's 24, which lies in the caller's words (its outgoing
  // area) and is read only for the function that asked for a growth.
  ASSERT_EQ(fi.nskip, 2u);
  EXPECT_EQ(fi.skip[0].offset, -64);
  EXPECT_EQ(fi.skip[0].words, 2u);
  EXPECT_EQ(fi.skip[1].offset, -24);
  EXPECT_EQ(fi.skip[1].words, 1u);
  EXPECT_EQ(g_objects[0].offset, 0) << "the map is not written";
}

TEST(FrameMap, UninstrumentedFunctionHasNoMap) {
  static FakeFunction f;
  memset(f.code, 0x90, sizeof f.code);
  EXPECT_EQ(map_for_entry(f.entry()), nullptr);
}

TEST(FrameMapDeathTest, OtherAbiVersionIsRefusedByName) {
  static FakeFunction f;
  static copystack_frame_map map;
  make_map(map);
  map.version = COPYSTACK_ABI_VERSION + 1;
  install(f, &map, COPYSTACK_ABI_VERSION + 1);
  EXPECT_DEATH(map_for_entry(f.entry()), "ABI version");
}

TEST(FrameMap, RuntimeCodeIsNotInstrumented) {
  const char *why = nullptr;
  EXPECT_EQ(frame_info_for_function(
                reinterpret_cast<uintptr_t>(&map_for_entry) + 4, &why),
            nullptr);
  EXPECT_STREQ(why, "the function was not compiled with the copystack plugin");
}
