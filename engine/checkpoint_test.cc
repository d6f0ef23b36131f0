// Goal: the checkpoint format round-trips every part exactly and no damaged byte is ever loaded.
// Method: JSON round trips of each part (the equivalents of upstream JsonSerializationTests); then
// exhaustive damage of a real encoded checkpoint: every truncation, and a bit flip at every byte,
// must give a typed error (never a crash, never a silent load).
#include "engine/checkpoint.h"

#include <gtest/gtest.h>

#include "engine/crc32c.h"
#include "engine/run_test_util.h"

namespace stepfault {
namespace {
using testing::Msg;

Checkpoint Sample() {
  Checkpoint c;
  c.session_id = "s1";
  c.step_number = 3;
  c.workflow = testing::ApprovalLikeWorkflow()->signature();
  c.instantiated = {"apply", "approval", "prepare"};
  c.queued["apply"] = {
      Envelope{Msg("Decision", Json{{"ok", true}}), "approval", std::nullopt, "r1"},
      Envelope{Msg("Decision", "x"), "", std::string("apply"), ""}};
  c.outstanding = {PendingRequest{"req-1", "approval", Msg("Ticket", Json{{"draft", "d"}})}};
  c.state["executor:prepare"]["op"] = "op-1";
  c.state["shared:s|x"]["weird|key"] = Json::array({1, 2.5, "three", nullptr});
  c.edge_state[2] = std::make_shared<const FanInState>(
      FanInState{{"a", "b"}, {"b"}, {Envelope{Msg("Part", 1), "a", std::nullopt, ""}}});
  c.parent = CheckpointInfo{"s1", "parent-id"};
  return c;
}

TEST(CheckpointJsonTest, EveryPartRoundTrips) {
  Message m = Msg("T", Json{{"a", 1}});
  EXPECT_EQ(*MessageFromJson(MessageToJson(m), ""), m);
  Envelope e{m, "src", std::string("tgt"), "rid"};
  EXPECT_EQ(*EnvelopeFromJson(EnvelopeToJson(e), ""), e);
  PendingRequest r{"id", "port", m};
  EXPECT_EQ(*PendingRequestFromJson(PendingRequestToJson(r), ""), r);
  FanInState f{{"a", "b", "c"}, {"c"}, {e, e}};
  EXPECT_EQ(*FanInStateFromJson(FanInStateToJson(f), ""), f);
  CheckpointInfo i{"s", "c"};
  EXPECT_EQ(*CheckpointInfoFromJson(CheckpointInfoToJson(i), ""), i);
  Checkpoint c = Sample();
  auto decoded = DecodeCheckpoint(EncodeCheckpoint(c));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(CheckpointsEqual(*decoded, c));
  EXPECT_EQ(EncodeCheckpoint(*decoded), EncodeCheckpoint(c));
}

TEST(CheckpointJsonTest, EncodingIsCanonical) {
  std::string bytes = EncodeCheckpoint(Sample());
  EXPECT_EQ(bytes.find('\n'), std::string::npos);
  EXPECT_EQ(bytes.find(": "), std::string::npos);
  EXPECT_EQ(bytes.rfind("{\"body\":", 0), 0u);  // keys sorted: body < checksum < format < version
  EXPECT_EQ(Json::parse(bytes).dump(), bytes);
}

TEST(CheckpointDamageTest, EveryTruncationIsATypedError) {
  const std::string bytes = EncodeCheckpoint(Sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto d = DecodeCheckpoint(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(d.ok()) << "prefix of " << n << " bytes loaded";
    EXPECT_EQ(d.status().code(), StatusCode::kCorruption) << n;
  }
}

TEST(CheckpointDamageTest, EveryBitFlipAnywhereIsATypedErrorOrAHarmlessNoOp) {
  const std::string bytes = EncodeCheckpoint(Sample());
  const std::string canonical = EncodeCheckpoint(*DecodeCheckpoint(bytes));
  int rejected = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit : {0, 5}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      auto d = DecodeCheckpoint(damaged);
      if (d.ok()) {
        // Only a flip that leaves the same canonical document may load (none should).
        EXPECT_EQ(EncodeCheckpoint(*d), canonical) << "byte " << i << " bit " << bit;
      } else {
        ++rejected;
        EXPECT_TRUE(d.status().code() == StatusCode::kCorruption ||
                    d.status().code() == StatusCode::kIncompatible)
            << d.status().ToString();
      }
    }
  }
  EXPECT_GT(rejected, static_cast<int>(bytes.size()));
}

TEST(CheckpointDamageTest, MalformedDocumentsNameWhatIsWrong) {
  EXPECT_NE(DecodeCheckpoint("").status().message().find("empty"), std::string::npos);
  EXPECT_NE(DecodeCheckpoint("{}").status().message().find("/format"), std::string::npos);
  Json doc = Json::parse(EncodeCheckpoint(Sample()));
  doc["version"] = 2;
  EXPECT_EQ(DecodeCheckpoint(doc.dump()).status().code(), StatusCode::kIncompatible);
  doc["version"] = 1;
  doc["body"]["step"] = "three";
  doc["checksum"] = Crc32cTag(doc["body"].dump());
  auto d = DecodeCheckpoint(doc.dump());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("/body/step: expected integer"), std::string::npos);
  doc["body"]["step"] = 3;
  doc["body"]["edge_state"]["x1"] = Json::object();
  doc["checksum"] = Crc32cTag(doc["body"].dump());
  EXPECT_NE(DecodeCheckpoint(doc.dump()).status().message().find("edge id"), std::string::npos);
}

}  // namespace
}  // namespace stepfault
