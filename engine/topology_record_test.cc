// Goal: a topology record round-trips its signature exactly, its key is a pure function of the
// signature's canonical bytes (equal signatures, equal keys; different, different), and any damage
// to the record (every single flipped byte, every truncation, another topology's record under this
// key, a malformed signature) is kCorruption, never a crash or a wrong signature.
// Method: a small real signature (WorkflowBuilder), then exhaustive single-byte flips and
// truncations of its encoding.
#include "engine/topology_record.h"

#include <gtest/gtest.h>

#include "engine/crc32c.h"
#include "engine/run_test_util.h"

namespace stepfault {
namespace {

Json SignatureOf(const std::string& second) {
  auto wf = WorkflowBuilder(testing::Forward("a"))
                .AddExecutor(testing::Forward(second))
                .AddEdge("a", second)
                .Build();
  EXPECT_TRUE(wf.ok());
  return (*wf)->signature();
}

TEST(TopologyRecordTest, RoundTripsTheSignatureUnderAKeyOfItsCanonicalBytes) {
  const Json sig = SignatureOf("b");
  const std::string key = TopologyRecordKey(sig);
  EXPECT_TRUE(IsTopologyRecordKey(key)) << key;
  EXPECT_EQ(key.size(), kTopologyRecordPrefix.size() + 32);
  EXPECT_EQ(key, TopologyRecordKey(Json::parse(sig.dump())));  // the value, not the object
  EXPECT_NE(key, TopologyRecordKey(SignatureOf("c")));
  const std::string bytes = EncodeTopologyRecord(sig);
  EXPECT_EQ(bytes, EncodeTopologyRecord(sig)) << "deterministic";
  auto decoded = DecodeTopologyRecord(bytes, key);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, sig);
}

TEST(TopologyRecordTest, EveryFlippedByteAndEveryTruncationIsCorruption) {
  const Json sig = SignatureOf("b");
  const std::string key = TopologyRecordKey(sig);
  const std::string bytes = EncodeTopologyRecord(sig);
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char bit : {0x01, 0x20, 0x80}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ bit);
      auto d = DecodeTopologyRecord(damaged, key);
      ASSERT_FALSE(d.ok()) << "byte " << i << " bit " << int(bit);
      EXPECT_EQ(d.status().code(), StatusCode::kCorruption) << d.status().ToString();
    }
  }
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto d = DecodeTopologyRecord(bytes.substr(0, n), key);
    ASSERT_FALSE(d.ok()) << n;
    EXPECT_EQ(d.status().code(), StatusCode::kCorruption);
  }
  EXPECT_EQ(DecodeTopologyRecord(bytes + "x", key).status().code(), StatusCode::kCorruption);
}

TEST(TopologyRecordTest, AnotherTopologysRecordOrAMalformedSignatureIsCorruption) {
  const std::string key = TopologyRecordKey(SignatureOf("b"));
  auto misfiled = DecodeTopologyRecord(EncodeTopologyRecord(SignatureOf("c")), key);
  ASSERT_FALSE(misfiled.ok());
  EXPECT_EQ(misfiled.status().code(), StatusCode::kCorruption);
  EXPECT_NE(misfiled.status().message().find("another topology"), std::string::npos);
  // Sealed and filed under its own key, but not a signature: still damage.
  const Json not_a_signature = Json{{"start", 3}};
  auto bad = DecodeTopologyRecord(EncodeTopologyRecord(not_a_signature),
                                  TopologyRecordKey(not_a_signature));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kCorruption);
  EXPECT_FALSE(IsTopologyRecordKey("topology-XYZ"));
  EXPECT_EQ(DecodeTopologyRecord("", "not-a-key").status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace stepfault
