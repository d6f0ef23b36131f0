// Goal: the hardware CRC32C path and the portable path compute the same, correct function.
// Method: known answers (RFC 3720 test vectors and the classic "123456789" check value) through
// the public entry point and the portable one; then, on a seeded pseudo-random buffer, every
// length 0..300 at every start offset 0..15 (unaligned heads and tails) and a few large lengths,
// hardware vs portable (the long ones through the three-lane rounds, cut at and around round
// boundaries), piecewise extension vs one call, and Crc32cCombine vs the portable CRC of the
// concatenation for every split of short buffers and a few long second parts.
#include "engine/crc32c.h"

#include <gtest/gtest.h>

#include <string>

namespace stepfault {
namespace {

std::string SeededBytes(size_t n) {
  std::string out(n, '\0');
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<char>(x & 0xFF);
  }
  return out;
}

TEST(Crc32cTest, KnownAnswers) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32cExtendPortable(0, "123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(Crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32cTag("123456789"), "crc32c:e3069283");
}

TEST(Crc32cTest, HardwareAndPortableAgreeOnEveryLengthAndAlignment) {
  if (!Crc32cHardwareAvailable()) GTEST_SKIP() << "no CRC32C instruction on this CPU";
  const std::string data = SeededBytes(1 << 20);
  auto check = [&](size_t offset, size_t n) {
    const std::string_view s = std::string_view(data).substr(offset, n);
    uint32_t hw = 0x12345678u;
    ASSERT_TRUE(Crc32cExtendHardware(&hw, s));
    EXPECT_EQ(hw, Crc32cExtendPortable(0x12345678u, s)) << "offset " << offset << " n " << n;
  };
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t n = 0; n <= 300; ++n) check(offset, n);
  }
  for (size_t n : {4095u, 4096u, 65537u, (1u << 20) - 3}) check(3, n - 3);
}

TEST(Crc32cTest, ThreeLaneRoundsAgreeWithThePortableLoopAtAndAroundRoundBoundaries) {
  if (!Crc32cHardwareAvailable()) GTEST_SKIP() << "no CRC32C instruction on this CPU";
  const std::string data = SeededBytes(3 * 12288 + 64);
  constexpr size_t kRound = 3 * 4096;  // three lanes of 4 KB (crc32c.cc)
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t n : {kRound - 1, kRound, kRound + 1, kRound + 8, 2 * kRound - 7, 2 * kRound,
                     3 * kRound + 13}) {
      const std::string_view s = std::string_view(data).substr(offset, n);
      uint32_t hw = 0xCAFEF00Du;
      ASSERT_TRUE(Crc32cExtendHardware(&hw, s));
      EXPECT_EQ(hw, Crc32cExtendPortable(0xCAFEF00Du, s)) << "offset " << offset << " n " << n;
    }
  }
}

TEST(Crc32cCombineTest, EqualsTheCrcOfTheConcatenationForEverySplitAndLength) {
  const std::string data = SeededBytes((size_t{1} << 21) + 12345 + 29);
  for (size_t total : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 100, 255, 300}) {
    const std::string_view bytes = std::string_view(data).substr(0, total);
    for (size_t split = 0; split <= total; ++split) {
      const std::string_view a = bytes.substr(0, split);
      const std::string_view b = bytes.substr(split);
      ASSERT_EQ(Crc32cCombine(Crc32cExtendPortable(0, a), Crc32cExtendPortable(0, b), b.size()),
                Crc32cExtendPortable(0, bytes))
          << "length " << total << " split " << split;
    }
  }
  // Long second parts: the square-and-multiply over many bits of the length.
  for (size_t len_b : {size_t{4096}, size_t{65537}, size_t{1} << 21, (size_t{1} << 21) + 12345}) {
    const std::string_view a = std::string_view(data).substr(0, 29);
    const std::string_view b = std::string_view(data).substr(29, len_b);
    EXPECT_EQ(Crc32cCombine(Crc32cExtendPortable(0, a), Crc32cExtendPortable(0, b), b.size()),
              Crc32cExtendPortable(0, std::string_view(data).substr(0, 29 + len_b)))
        << len_b;
  }
}

TEST(Crc32cTest, ExtendingPiecewiseEqualsOneCall) {
  const std::string data = SeededBytes(10007);
  for (size_t cut : {0u, 1u, 7u, 8u, 9u, 4096u, 10006u, 10007u}) {
    const std::string_view a = std::string_view(data).substr(0, cut);
    const std::string_view b = std::string_view(data).substr(cut);
    EXPECT_EQ(Crc32cExtend(Crc32c(a), b), Crc32c(data)) << cut;
    EXPECT_EQ(Crc32cExtendPortable(Crc32cExtendPortable(0, a), b), Crc32c(data)) << cut;
  }
}

}  // namespace
}  // namespace stepfault
