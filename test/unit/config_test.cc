// Units of config.cc: sizes as COPYSTACK_MAX_STACK accepts them.
#include "platform/config.h"

#include <gtest/gtest.h>

using copystack_rt::parse_size;

TEST(ParseSize, PlainBytes) { EXPECT_EQ(parse_size("4096"), 4096u); }

TEST(ParseSize, Suffixes) {
  EXPECT_EQ(parse_size("64K"), 64u << 10);
  EXPECT_EQ(parse_size("8m"), 8u << 20);
  EXPECT_EQ(parse_size("1G"), 1ull << 30);
  EXPECT_EQ(parse_size("2GiB"), 2ull << 30);
}

TEST(ParseSize, RejectsGarbage) {
  EXPECT_EQ(parse_size(""), 0u);
  EXPECT_EQ(parse_size("big"), 0u);
  EXPECT_EQ(parse_size("12Q"), 0u);
}
