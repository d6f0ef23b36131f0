// Crc32cOfCommitted and Crc32cCombine, the stores' shortcuts around a second CRC pass.
// Goal: each gives exactly Crc32c of the bytes it stands for, and where it trusts a seal instead
// of reading the bytes, a wrong seal gives a CRC that is not the bytes' (so a store's own check
// catches it). Method: compare against Crc32c over the concatenated bytes for every split of
// seeded random strings of many lengths (0 to 300 and a few large ones), and for real encoded
// checkpoints and deltas, intact, with a damaged byte, and with a damaged or malformed trailer.
#include "engine/stores/committed_crc.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"
#include "engine/random.h"

namespace stepfault {
namespace {

std::string RandomBytes(Rng& rng, size_t n) {
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng.Uniform(256));
  return out;
}

Checkpoint SmallCheckpoint(const std::string& text) {
  Checkpoint c;
  c.session_id = "s";
  c.step_number = 3;
  c.workflow = nlohmann::json::object();
  c.state["executor:a"]["text"] = text;  // a blob when long enough (kFrameMinBytes)
  c.state["executor:a"]["n"] = 7;
  return c;
}

TEST(Crc32cCombineTest, EqualsTheCrcOfTheConcatenationForEverySplitAndLength) {
  Rng rng(20261130);
  for (size_t total : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 100, 255, 300}) {
    const std::string bytes = RandomBytes(rng, total);
    for (size_t split = 0; split <= total; ++split) {
      const std::string_view a = std::string_view(bytes).substr(0, split);
      const std::string_view b = std::string_view(bytes).substr(split);
      ASSERT_EQ(Crc32cCombine(Crc32c(a), Crc32c(b), b.size()), Crc32c(bytes))
          << "length " << total << " split " << split;
    }
  }
  // Large second parts: the square-and-multiply over many bits of the length.
  for (size_t len_b : {size_t{4096}, size_t{65537}, size_t{1} << 21, (size_t{1} << 21) + 12345}) {
    const std::string a = RandomBytes(rng, 29);
    const std::string b = RandomBytes(rng, len_b);
    EXPECT_EQ(Crc32cCombine(Crc32c(a), Crc32c(b), b.size()), Crc32c(a + b)) << len_b;
  }
}

TEST(Crc32cOfCommittedTest, EqualsTheFullPassForFramedCheckpointsAndDeltas) {
  const Checkpoint base = SmallCheckpoint(std::string(5000, 'q'));
  const Checkpoint next = SmallCheckpoint(std::string(300, 'r'));
  for (const std::string& bytes :
       {EncodeCheckpoint(base), EncodeCheckpoint(SmallCheckpoint("short")),
        EncodeCheckpointDelta(next, base, std::string(32, 'a'))}) {
    ASSERT_TRUE(LooksLikeFramedCheckpoint(bytes));
    EXPECT_EQ(Crc32cOfCommitted(bytes), Crc32c(bytes));
  }
}

TEST(Crc32cOfCommittedTest, EqualsTheFullPassForBytesThatAreNotFramedOrHaveNoWellFormedTrailer) {
  const std::string framed = EncodeCheckpoint(SmallCheckpoint(std::string(1000, 'x')));
  std::string upper = framed;  // the seal in uppercase hex is not the codec's trailer
  for (size_t i = upper.size() - 9; i < upper.size() - 1; ++i) {
    upper[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(upper[i])));
  }
  std::string no_newline = framed;
  no_newline.back() = ' ';
  for (const std::string& bytes :
       {std::string(R"({"n":1})"), std::string(), std::string("stepfault.checkpoint v2"),
        framed.substr(0, framed.size() - 1), upper, no_newline, std::string("crc32c:00000000\n")}) {
    EXPECT_EQ(Crc32cOfCommitted(bytes), Crc32c(bytes)) << bytes.substr(0, 40);
  }
}

// The shortcut trusts the seal: damage the seal covers, or a wrong seal, gives a CRC that is not
// the bytes' own, which is what makes a store's check fail on read.
TEST(Crc32cOfCommittedTest, BytesThatDisagreeWithTheirSealGetACrcThatIsNotTheirs) {
  const std::string framed = EncodeCheckpoint(SmallCheckpoint(std::string(2000, 'y')));
  std::string damaged_body = framed;
  damaged_body[framed.size() / 2] ^= 0x01;
  std::string damaged_seal = framed;
  damaged_seal[framed.size() - 2] = damaged_seal[framed.size() - 2] == '0' ? '1' : '0';
  for (const std::string& bytes : {damaged_body, damaged_seal}) {
    EXPECT_NE(Crc32cOfCommitted(bytes), Crc32c(bytes));
  }
}

}  // namespace
}  // namespace stepfault
