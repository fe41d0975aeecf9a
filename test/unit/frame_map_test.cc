// Units of frame_info.cc: finding and decoding a frame map through the
// 24-byte prefix the pass puts before an instrumented function.
#include "core/frame_info.h"

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

copystack_object g_objects[3];
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

copystack_frame_map make_map() {
  copystack_frame_map m{};
  m.version = COPYSTACK_ABI_VERSION;
  m.name = "fake";
  m.resolve = resolve;
  m.objects = g_objects;
  m.nobjects = 3;
  m.nescaped = 2;
  g_objects[2].offset = 24; // an argument object: fixed offset
  g_objects[2].flags = COPYSTACK_OBJF_ARGUMENT;
  return m;
}

} // namespace

TEST(FrameMap, MagicMarksInstrumentedCode) {
  static FakeFunction f;
  static copystack_frame_map map = make_map();
  install(f, &map, COPYSTACK_ABI_VERSION);
  EXPECT_TRUE(is_instrumented(reinterpret_cast<void *>(f.entry())));
  EXPECT_FALSE(is_instrumented(reinterpret_cast<void *>(f.entry() + 1)));
}

TEST(FrameMap, ResolvesEscapedOffsetsOnce) {
  static FakeFunction f;
  static copystack_frame_map map = make_map();
  install(f, &map, COPYSTACK_ABI_VERSION);
  g_resolve_calls = 0;
  const copystack_frame_map *m = map_for_entry(f.entry());
  ASSERT_EQ(m, &map);
  EXPECT_EQ(m->objects[0].offset, -24);
  EXPECT_EQ(m->objects[1].offset, -64);
  EXPECT_EQ(m->objects[2].offset, 24) << "argument offsets are not resolved";
  map_for_entry(f.entry());
  EXPECT_EQ(g_resolve_calls, 1);
}

TEST(FrameMap, UninstrumentedFunctionHasNoMap) {
  static FakeFunction f;
  memset(f.code, 0x90, sizeof f.code);
  EXPECT_EQ(map_for_entry(f.entry()), nullptr);
}

TEST(FrameMapDeathTest, OtherAbiVersionIsRefusedByName) {
  static FakeFunction f;
  static copystack_frame_map map = make_map();
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
