// Crc32cOfCommitted, the stores' shortcut around a second CRC pass (Crc32cCombine, which the
// SQLite store also uses, is tested in engine/crc32c_test.cc).
// Goal: it gives exactly Crc32c of the bytes it stands for, and where it trusts a seal instead of
// reading the bytes, a wrong seal gives a CRC that is not the bytes' (so a store's own check
// catches it). Method: compare against Crc32c over the bytes for real encoded checkpoints and
// deltas, intact, with a damaged byte, and with a damaged or malformed trailer, and for bytes that
// are not framed. Crc32cOfCommittedParts is compared with Crc32cOfCommitted of the joined bytes
// for every cut of those bytes into two parts and many into three.
#include "engine/stores/committed_crc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"

namespace stepfault {
namespace {

Checkpoint SmallCheckpoint(const std::string& text) {
  Checkpoint c;
  c.session_id = "s";
  c.step_number = 3;
  c.workflow = nlohmann::json::object();
  c.state["executor:a"]["text"] = text;  // a blob when long enough (kFrameMinBytes)
  c.state["executor:a"]["n"] = 7;
  return c;
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

// The parts form the file store writes from: whatever the cuts (through the magic, the trailer,
// empty parts), the same CRC as the joined bytes, intact, with a wrong seal, or not framed.
TEST(Crc32cOfCommittedTest, PartsGiveWhatTheJoinedBytesGiveWhereverTheyAreCut) {
  const std::string framed = EncodeCheckpoint(SmallCheckpoint(std::string(300, 'p')));
  std::string wrong_seal = framed;
  wrong_seal[framed.size() - 3] = wrong_seal[framed.size() - 3] == '0' ? '1' : '0';
  ASSERT_NE(Crc32cOfCommitted(wrong_seal), Crc32c(wrong_seal));  // the seal is trusted
  for (const std::string& bytes : {framed, wrong_seal, std::string(R"({"n":1,"s":"abc"})")}) {
    const std::string_view all(bytes);
    const uint32_t expected = Crc32cOfCommitted(bytes);
    for (size_t i = 0; i <= all.size(); ++i) {
      const std::vector<std::string_view> two = {all.substr(0, i), all.substr(i)};
      ASSERT_EQ(Crc32cOfCommittedParts(two), expected) << "cut at " << i;
    }
    for (size_t i = 0; i <= std::min<size_t>(30, all.size()); ++i) {
      for (size_t back = 0; back <= 20 && back <= all.size() - i; ++back) {
        const size_t j = all.size() - back;
        const std::vector<std::string_view> three = {all.substr(0, i), all.substr(i, j - i),
                                                     all.substr(j)};
        ASSERT_EQ(Crc32cOfCommittedParts(three), expected) << "cuts at " << i << ", " << j;
      }
    }
  }
}

}  // namespace
}  // namespace stepfault
