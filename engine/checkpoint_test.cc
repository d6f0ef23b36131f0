// Goal: the checkpoint format round-trips every part exactly, old full checkpoints (versions 1 and
// 2) still decode, and no damaged byte is ever loaded. Method: JSON round trips of each part (the
// equivalents of upstream JsonSerializationTests); the framed version-2 layout checked byte by byte
// on a checkpoint with large strings in every framed place; golden version-1 and version-2 full
// checkpoints checked in under engine/testdata decoded (the version-2 one also as the base of a
// delta); then exhaustive damage of real encoded checkpoints of both versions: every truncation,
// and a bit flip at every byte, must give a typed error (never a crash, never a silent load).
#include "engine/checkpoint.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/crc32c.h"
#include "engine/run_test_util.h"
#include "tools/testing/test_env.h"

namespace stepfault {
namespace {
using testing::Msg;

Checkpoint Sample() {
  Checkpoint c;
  c.session_id = "s1";
  c.step_number = 3;
  c.workflow = testing::ApprovalLikeWorkflow()->signature();
  c.instantiated = std::vector<std::string>{"apply", "approval", "prepare"};
  c.queued.Mutable()["apply"] = {
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

// Sample() plus large strings (framed as blobs) in a state value, a nested state value, a queued
// message, an outstanding request and a fan-in buffer, and strings that start with U+0000 or look
// like blob references (escaped, not framed).
Checkpoint SampleWithBlobs() {
  Checkpoint c = Sample();
  const std::string big(300, 'x');
  c.state["executor:prepare"]["big"] = big + "\"quoted\"\n" + big;
  c.state["executor:prepare"]["nested"] = Json{{"a", Json::array({big, 1, std::string(200, 'y')})}};
  c.state["executor:prepare"]["nul"] = std::string("\0blob:0", 7);
  c.state["executor:prepare"]["nul2"] = std::string("\0\0x", 3);
  c.state["executor:prepare"]["big_nul"] = std::string(1, '\0') + big;
  c.queued.Mutable()["apply"].push_back(
      Envelope{Msg("Big", Json{{"text", big}}), "approval", {}, ""});
  c.outstanding.push_back(PendingRequest{"req-2", "approval", Msg("Ticket", big)});
  c.edge_state[3] = std::make_shared<const FanInState>(
      FanInState{{"a"}, {}, {Envelope{Msg("Part", std::string(129, 'z')), "a", std::nullopt, ""}}});
  c.session_id = std::string(kFrameMinBytes + 5, 's');  // large, but not in a framed place
  c.parent = CheckpointInfo{c.session_id, "parent-id"};
  return c;
}

std::string ReadTestData(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path root(test_env::SourceDir());
  std::ifstream in(root / "engine" / "testdata" / name, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
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
  auto from_json = DecodeCheckpoint(EncodeCheckpointJson(c));
  ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
  EXPECT_EQ(EncodeCheckpoint(*from_json), EncodeCheckpoint(c));
}

TEST(CheckpointFramedTest, LargeStringsEverywhereRoundTripExactly) {
  const Checkpoint c = SampleWithBlobs();
  for (const std::string& bytes : {EncodeCheckpoint(c), EncodeCheckpointJson(c)}) {
    auto d = DecodeCheckpoint(bytes);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->state, c.state);
    EXPECT_EQ(*d->queued, *c.queued);
    EXPECT_EQ(d->outstanding, c.outstanding);
    EXPECT_EQ(*d->edge_state.at(3), *c.edge_state.at(3));
    EXPECT_EQ(d->session_id, c.session_id);
    EXPECT_EQ(EncodeCheckpointJson(*d), EncodeCheckpointJson(c));
  }
}

TEST(CheckpointFramedTest, LayoutIsHeaderJsonMetadataRawBlobsAndACrcOfEverythingBefore) {
  const Checkpoint c = SampleWithBlobs();
  const std::string bytes = EncodeCheckpoint(c);
  ASSERT_EQ(bytes.rfind("stepfault.checkpoint v2 ", 0), 0u);
  const size_t header_end = bytes.find('\n');
  std::istringstream header(bytes.substr(24, header_end - 24));
  size_t meta_bytes = 0, blob_bytes = 0;
  header >> meta_bytes >> blob_bytes;
  const std::string meta_text = bytes.substr(header_end + 1, meta_bytes);
  EXPECT_EQ(bytes[header_end + 1 + meta_bytes], '\n');
  EXPECT_EQ(meta_text.find('\n'), std::string::npos);
  const Json meta = Json::parse(meta_text);
  EXPECT_EQ(meta.dump(), meta_text);  // canonical JSON
  // Seven framed strings; their bytes appear raw, quotes and newline unescaped.
  ASSERT_EQ(meta["blobs"].size(), 7u);
  EXPECT_EQ(meta["body"]["state"]["executor:prepare"]["big"].get<std::string>().rfind(
                std::string("\0blob:", 6), 0),
            0u);
  const std::string blobs = bytes.substr(header_end + 1 + meta_bytes + 1, blob_bytes);
  EXPECT_NE(blobs.find(std::string(300, 'x') + "\"quoted\"\n"), std::string::npos);
  EXPECT_EQ(meta["body"]["state"]["executor:prepare"]["nul"], std::string("\0\0blob:0", 8));
  EXPECT_EQ(meta["body"]["session_id"], c.session_id);  // not a framed place
  EXPECT_EQ(bytes.size(), header_end + 1 + meta_bytes + 1 + blob_bytes + 16);
  const std::string sealed = bytes.substr(0, bytes.size() - 16);
  EXPECT_EQ(bytes.substr(bytes.size() - 16), Crc32cTag(sealed) + "\n");
  EXPECT_EQ(EncodeCheckpoint(c), bytes);  // deterministic
}

// The parts a store writes gathered: the state's large strings are referenced where they are
// (no copy), and the parts joined are the encoding, sealed over every byte before the trailer.
TEST(CheckpointFramedTest, PartsReferenceTheValuesOwnBytesAndJoinToTheSealedEncoding) {
  const Checkpoint c = SampleWithBlobs();
  const EncodedCheckpoint encoded = EncodeCheckpointParts(c);
  const std::vector<std::string_view> parts = encoded.Parts();
  ASSERT_EQ(parts.size(), 7u + 2);  // head, seven blobs, trailer
  std::string joined;
  for (std::string_view p : parts) joined.append(p);
  EXPECT_EQ(joined, EncodeCheckpoint(c));
  EXPECT_EQ(encoded.Join(), joined);
  EXPECT_EQ(encoded.size(), joined.size());
  EXPECT_EQ(encoded.seal(), Crc32c(std::string_view(joined).substr(0, joined.size() - 16)));
  EXPECT_EQ(parts.back(), Crc32cTagOf(encoded.seal()) + "\n");
  const std::string& big = c.state.at("executor:prepare").at("big")->get_ref<const std::string&>();
  const auto points_into = [&](const std::vector<std::string_view>& ps, const std::string& value) {
    return std::any_of(ps.begin(), ps.end(), [&](std::string_view p) {
      return p.data() == value.data() && p.size() == value.size();
    });
  };
  EXPECT_TRUE(points_into(parts, big));
  // A delta's changed value too; a moved EncodedCheckpoint keeps valid parts.
  Checkpoint next = c;
  next.state["executor:prepare"]["big"] = std::string(5000, 'n');
  EncodedCheckpoint delta = EncodeCheckpointDeltaParts(next, c, "base-id");
  const EncodedCheckpoint moved = std::move(delta);
  const std::string& changed =
      next.state.at("executor:prepare").at("big")->get_ref<const std::string&>();
  EXPECT_TRUE(points_into(moved.Parts(), changed));
  EXPECT_EQ(moved.Join(), EncodeCheckpointDelta(next, c, "base-id"));
}

TEST(CheckpointFramedTest, GoldenVersion1CheckpointFromThePreviousCodecStillDecodes) {
  const std::string golden = ReadTestData("checkpoint_v1.json");
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(golden, EncodeCheckpointJson(Sample()));  // version 1 is still written the same
  auto d = DecodeCheckpoint(golden);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(CheckpointsEqual(*d, Sample()));
}

// A full checkpoint in the format before incremental checkpoints (version 2, framed, with blobs in
// every framed place), written by EncodeCheckpoint and checked in: it still decodes to the same
// checkpoint, resolves without any base, is still what EncodeCheckpoint writes, and serves as the
// base of a version-3 delta.
TEST(CheckpointFramedTest, GoldenVersion2FullCheckpointStillDecodesAndServesAsADeltaBase) {
  const std::string golden = ReadTestData("checkpoint_v2.ckpt");
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(golden.rfind("stepfault.checkpoint v2 ", 0), 0u) << golden.substr(0, 40);
  const Checkpoint expected = SampleWithBlobs();
  auto d = DecodeCheckpoint(golden);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(CheckpointsEqual(*d, expected));
  auto base = CheckpointDeltaBase(golden);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  EXPECT_FALSE(base->has_value());
  auto no_fetch = [](const std::string& id) -> Result<std::string> {
    return Status::NotFound("a full checkpoint fetched " + id);
  };
  auto resolved = ResolveCheckpoint(golden, no_fetch);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_TRUE(CheckpointsEqual(*resolved, expected));
  EXPECT_EQ(EncodeCheckpoint(expected), golden) << "version 2 is still written the same";

  Checkpoint next = expected;
  next.step_number = expected.step_number + 1;
  next.state["executor:prepare"]["op"] = "op-2";
  next.state["executor:prepare"].erase("nul2");
  next.parent = CheckpointInfo{expected.session_id, "golden"};
  const std::string delta = EncodeCheckpointDelta(next, *d, "golden");
  auto fetch = [&](const std::string& id) -> Result<std::string> {
    if (id == "golden") return golden;
    return Status::NotFound(id);
  };
  auto chained = ResolveCheckpoint(delta, fetch);
  ASSERT_TRUE(chained.ok()) << chained.status().ToString();
  EXPECT_TRUE(CheckpointsEqual(*chained, next));
}

TEST(CheckpointJsonTest, JsonEncodingIsCanonical) {
  std::string bytes = EncodeCheckpointJson(Sample());
  EXPECT_EQ(bytes.find('\n'), std::string::npos);
  EXPECT_EQ(bytes.find(": "), std::string::npos);
  EXPECT_EQ(bytes.rfind("{\"body\":", 0), 0u);  // keys sorted: body < checksum < format < version
  EXPECT_EQ(Json::parse(bytes).dump(), bytes);
}

std::vector<std::string> Encodings() {
  return {EncodeCheckpoint(Sample()), EncodeCheckpointJson(Sample()),
          EncodeCheckpoint(SampleWithBlobs())};
}

TEST(CheckpointDamageTest, EveryTruncationIsATypedError) {
  for (const std::string& bytes : Encodings()) {
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto d = DecodeCheckpoint(std::string_view(bytes).substr(0, n));
      ASSERT_FALSE(d.ok()) << "prefix of " << n << " bytes loaded";
      EXPECT_EQ(d.status().code(), StatusCode::kCorruption) << n;
    }
  }
}

TEST(CheckpointDamageTest, EveryBitFlipAnywhereIsATypedErrorOrAHarmlessNoOp) {
  for (const std::string& bytes : Encodings()) {
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
}

TEST(CheckpointDamageTest, MalformedDocumentsNameWhatIsWrong) {
  EXPECT_NE(DecodeCheckpoint("").status().message().find("empty"), std::string::npos);
  EXPECT_NE(DecodeCheckpoint("{}").status().message().find("/format"), std::string::npos);
  Json doc = Json::parse(EncodeCheckpointJson(Sample()));
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
  EXPECT_NE(DecodeCheckpoint("xyz").status().message().find("neither"), std::string::npos);
}

// Re-frames `meta` as a correctly sealed version-2 document over `blobs`.
std::string Reseal(const Json& meta, const std::string& blobs, int version = 2) {
  const std::string m = meta.dump();
  std::string out = "stepfault.checkpoint v" + std::to_string(version) + " " +
                    std::to_string(m.size()) + " " + std::to_string(blobs.size()) + "\n" + m +
                    "\n" + blobs;
  return out + Crc32cTag(out) + "\n";
}

TEST(CheckpointDamageTest, SealedButMalformedFramesNameWhatIsWrong) {
  const std::string bytes = EncodeCheckpoint(SampleWithBlobs());
  const size_t header_end = bytes.find('\n');
  const size_t meta_end = bytes.find('\n', header_end + 1);
  const Json meta = Json::parse(bytes.substr(header_end + 1, meta_end - header_end - 1));
  const std::string blobs = bytes.substr(meta_end + 1, bytes.size() - 16 - meta_end - 1);
  ASSERT_TRUE(DecodeCheckpoint(Reseal(meta, blobs)).ok());
  EXPECT_EQ(DecodeCheckpoint(Reseal(meta, blobs, 4)).status().code(), StatusCode::kIncompatible);
  auto message = [](const std::string& b) { return DecodeCheckpoint(b).status().message(); };
  Json m = meta;
  m["blobs"].push_back(0);  // a blob nobody references
  EXPECT_NE(message(Reseal(m, blobs)).find("never referenced"), std::string::npos);
  m = meta;
  m["body"]["state"]["executor:prepare"]["nul"] = std::string("\0blob:0", 7);  // used twice
  EXPECT_NE(message(Reseal(m, blobs)).find("used twice"), std::string::npos);
  m["body"]["state"]["executor:prepare"]["nul"] = std::string("\0blob:00", 8);  // not canonical
  EXPECT_NE(message(Reseal(m, blobs)).find("malformed blob reference"), std::string::npos);
  m["body"]["state"]["executor:prepare"]["nul"] = std::string("\0oops", 5);
  EXPECT_NE(message(Reseal(m, blobs)).find("malformed blob reference"), std::string::npos);
  m = meta;
  m["blobs"][0] = m["blobs"][0].get<int>() + 1;
  EXPECT_NE(message(Reseal(m, blobs)).find("/blobs"), std::string::npos);
  m = meta;
  m["extra"] = 1;
  EXPECT_NE(message(Reseal(m, blobs)).find("unexpected fields"), std::string::npos);
  std::string short_header = Reseal(meta, blobs);
  short_header[24] = short_header[24] == '9' ? '8' : static_cast<char>(short_header[24] + 1);
  EXPECT_EQ(DecodeCheckpoint(short_header).status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace stepfault
