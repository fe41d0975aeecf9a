// Units of config.cc: the strict parsers behind every COPYSTACK_* setting,
// and the closest setting to a typo.
#include "platform/config.h"

#include <cstring>
#include <gtest/gtest.h>

using copystack_rt::closest_knob;
using copystack_rt::parse_bool;
using copystack_rt::parse_count;
using copystack_rt::parse_size;

namespace {

uint64_t size_of(const char *text) {
  uint64_t v = 12345;
  EXPECT_TRUE(parse_size(text, &v)) << text;
  return v;
}

bool rejects_size(const char *text) {
  uint64_t v = 12345;
  return !parse_size(text, &v) && v == 12345;
}

} // namespace

TEST(ParseSize, PlainBytes) { EXPECT_EQ(size_of("4096"), 4096u); }

TEST(ParseSize, Suffixes) {
  EXPECT_EQ(size_of("64K"), 64u << 10);
  EXPECT_EQ(size_of("8m"), 8u << 20);
  EXPECT_EQ(size_of("1G"), 1ull << 30);
  EXPECT_EQ(size_of("2GiB"), 2ull << 30);
  EXPECT_EQ(size_of("3kb"), 3u << 10);
  EXPECT_EQ(size_of("1T"), 1ull << 40);
}

TEST(ParseSize, RejectsGarbage) {
  EXPECT_TRUE(rejects_size(""));
  EXPECT_TRUE(rejects_size("big"));
  EXPECT_TRUE(rejects_size("12Q"));
  EXPECT_TRUE(rejects_size("4x"));
  EXPECT_TRUE(rejects_size("4K "));
  EXPECT_TRUE(rejects_size(" 4K"));
}

TEST(ParseSize, RejectsNegatives) {
  EXPECT_TRUE(rejects_size("-5"));
  EXPECT_TRUE(rejects_size("+5"));
}

// The values that once meant "no limit" or silently became 2 KiB.
TEST(ParseSize, RejectsOverflow) {
  EXPECT_TRUE(rejects_size("99999999999999999999"));
  EXPECT_TRUE(rejects_size("18014398509481986K"));
  EXPECT_TRUE(rejects_size("17179869184G"));
  EXPECT_EQ(size_of("18446744073709551615"), UINT64_MAX);
}

TEST(ParseCount, DigitsOnly) {
  uint64_t v = 0;
  EXPECT_TRUE(parse_count("1000", &v));
  EXPECT_EQ(v, 1000u);
  EXPECT_FALSE(parse_count("", &v));
  EXPECT_FALSE(parse_count("-1", &v));
  EXPECT_FALSE(parse_count("10ms", &v));
  EXPECT_FALSE(parse_count("18446744073709551616", &v));
}

TEST(ParseBool, ExactlyTheEightWords) {
  bool v = false;
  for (const char *t : {"1", "true", "yes", "on", "TRUE", "On"}) {
    v = false;
    EXPECT_TRUE(parse_bool(t, &v)) << t;
    EXPECT_TRUE(v) << t;
  }
  for (const char *f : {"0", "false", "no", "off", "False", "OFF"}) {
    v = true;
    EXPECT_TRUE(parse_bool(f, &v)) << f;
    EXPECT_FALSE(v) << f;
  }
  for (const char *bad : {"", "2", "y", "enable", "truee", "0x1"})
    EXPECT_FALSE(parse_bool(bad, &v)) << bad;
}

TEST(ClosestKnob, NamesTheSettingATypoMeant) {
  EXPECT_STREQ(closest_knob("COPYSTACK_STRES"), "COPYSTACK_STRESS");
  EXPECT_STREQ(closest_knob("COPYSTACK_MAXSTACK"), "COPYSTACK_MAX_STACK");
  EXPECT_STREQ(closest_knob("COPYSTACK_WORKER"), "COPYSTACK_WORKERS");
  EXPECT_EQ(closest_knob("COPYSTACK_SOMETHING_ELSE_ENTIRELY"), nullptr);
}
