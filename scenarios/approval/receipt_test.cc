// Goal: the waiting receipt round-trips, is published by the durable protocol (and its two
// mutants really skip what they claim to skip), and a damaged receipt is never loaded silently.
// Method: publish on a scratch directory through a recording EnvWrapper that logs every file
// operation; damage the published bytes exhaustively (every truncation, every byte flipped with
// several masks) and hand-build well-sealed documents that break one structural rule each.
#include "scenarios/approval/receipt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "engine/crc32c.h"
#include "tools/testing/test_env.h"

namespace stepfault::scenarios {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;

// Logs each file operation as "op name" with paths reduced to their base names.
class RecordingEnv : public EnvWrapper {
 public:
  RecordingEnv() : EnvWrapper(PosixEnv()) {}

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    ops.push_back("create " + BaseName(path));
    SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, target()->NewWritableFile(path));
    return std::unique_ptr<WritableFile>(new RecordingFile(this, BaseName(path), std::move(file)));
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    ops.push_back("rename " + BaseName(from) + " " + BaseName(to));
    return target()->RenameFile(from, to);
  }
  Status SyncDir(const std::string& dir) override {
    ops.push_back("syncdir");
    return target()->SyncDir(dir);
  }

  std::vector<std::string> ops;

 private:
  class RecordingFile : public WritableFile {
   public:
    RecordingFile(RecordingEnv* env, std::string name, std::unique_ptr<WritableFile> file)
        : env_(env), name_(std::move(name)), file_(std::move(file)) {}
    Status Append(std::string_view data) override {
      env_->ops.push_back("append " + name_);
      return file_->Append(data);
    }
    Status Sync() override {
      env_->ops.push_back("sync " + name_);
      return file_->Sync();
    }
    Status Close() override {
      env_->ops.push_back("close " + name_);
      return file_->Close();
    }

   private:
    RecordingEnv* env_;
    std::string name_;
    std::unique_ptr<WritableFile> file_;
  };
};

class RecordingProbe : public Probe {
 public:
  void Hit(std::string_view point) override { hits.emplace_back(point); }
  std::vector<std::string> hits;
};

WaitingReceipt Sample() {
  return {.graph_version = "ApprovalWorkflow.v1",
          .session_id = "5f0c6a1e9b2d4c3a8e7f6a5b4c3d2e1f",
          .checkpoint_id = "ckpt-000003",
          .operation_id = "op-7d2a",
          .request_id = "req-\xC3\xA9-42"};
}

// Seals `doc` by the documented rule: Crc32cTag of the canonical document without "checksum".
std::string Seal(Json doc) {
  doc.erase("checksum");
  std::string checksum = Crc32cTag(doc.dump());
  doc["checksum"] = checksum;
  return doc.dump();
}

Json SampleDoc() { return Json::parse(EncodeReceipt(Sample()).value()); }

class ReceiptTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_env::ScratchDir("receipt"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string dir_;
};

TEST_F(ReceiptTest, PublishedReceiptReadsBackEqualAndLeavesNoTemp) {
  RecordingProbe probe;
  ASSERT_TRUE(PublishReceipt(PosixEnv(), dir_, Sample(), {.probe = &probe}).ok());
  EXPECT_THAT(probe.hits, ElementsAre("receipt.publish.before", "receipt.publish.after"));
  auto read = ReadReceipt(PosixEnv(), dir_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ(**read, Sample());
  EXPECT_EQ(PosixEnv()->ReadFile(JoinPath(dir_, "waiting.json")).value(),
            EncodeReceipt(Sample()).value());
  EXPECT_THAT(PosixEnv()->GetChildren(dir_).value(), ElementsAre("waiting.json"));
}

TEST_F(ReceiptTest, EncodingIsCanonicalSortedAndSealed) {
  const std::string bytes = EncodeReceipt(Sample()).value();
  EXPECT_EQ(bytes.find_first_of(" \n\t"), std::string::npos);
  EXPECT_EQ(bytes.rfind("{\"body\":{\"checkpoint_id\":", 0), 0u);
  Json doc = Json::parse(bytes);
  EXPECT_EQ(doc["format"], "stepfault.waiting_receipt");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(Seal(doc), bytes);
}

TEST_F(ReceiptTest, RepublishingReplacesTheReceipt) {
  ASSERT_TRUE(PublishReceipt(PosixEnv(), dir_, Sample()).ok());
  WaitingReceipt next = Sample();
  next.checkpoint_id = "ckpt-000009";
  ASSERT_TRUE(PublishReceipt(PosixEnv(), dir_, next).ok());
  EXPECT_EQ(ReadReceipt(PosixEnv(), dir_).value(), next);
}

TEST_F(ReceiptTest, AbsentReceiptIsNulloptAndALeftoverTempIsIgnored) {
  EXPECT_EQ(ReadReceipt(PosixEnv(), dir_).value(), std::nullopt);
  ASSERT_TRUE(WriteFileAtomically(PosixEnv(), dir_, "waiting.json.tmp", "{\"half").ok());
  EXPECT_EQ(ReadReceipt(PosixEnv(), dir_).value(), std::nullopt);
}

TEST_F(ReceiptTest, DurableProtocolWritesTempSyncsRenamesAndSyncsTheDirectory) {
  RecordingEnv env;
  ASSERT_TRUE(PublishReceipt(&env, dir_, Sample()).ok());
  EXPECT_THAT(env.ops, ElementsAre("create waiting.json.tmp", "append waiting.json.tmp",
                                   "sync waiting.json.tmp", "close waiting.json.tmp",
                                   "rename waiting.json.tmp waiting.json", "syncdir"));
}

TEST_F(ReceiptTest, InPlaceMutantSkipsTempFileFsyncAndRename) {
  RecordingEnv env;
  ASSERT_TRUE(PublishReceipt(&env, dir_, Sample(), {.hazard_in_place = true}).ok());
  EXPECT_THAT(env.ops,
              ElementsAre("create waiting.json", "append waiting.json", "close waiting.json"));
  EXPECT_EQ(ReadReceipt(PosixEnv(), dir_).value(), Sample());  // same bytes, weaker protocol
}

TEST_F(ReceiptTest, NoDirSyncMutantSkipsOnlyTheDirectoryFsync) {
  RecordingEnv env;
  ASSERT_TRUE(PublishReceipt(&env, dir_, Sample(), {.hazard_no_dir_sync = true}).ok());
  EXPECT_THAT(env.ops, ElementsAre("create waiting.json.tmp", "append waiting.json.tmp",
                                   "sync waiting.json.tmp", "close waiting.json.tmp",
                                   "rename waiting.json.tmp waiting.json"));
  EXPECT_EQ(ReadReceipt(PosixEnv(), dir_).value(), Sample());
}

TEST_F(ReceiptTest, FailedPublishReportsTheErrorAndSkipsTheAfterPoint) {
  RecordingProbe probe;
  Status s = PublishReceipt(PosixEnv(), JoinPath(dir_, "missing"), Sample(), {.probe = &probe});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("publishing waiting receipt"));
  EXPECT_THAT(probe.hits, ElementsAre("receipt.publish.before"));
}

TEST_F(ReceiptTest, EmptyOrNonUtf8FieldsAreRefusedBeforeWriting) {
  WaitingReceipt missing = Sample();
  missing.request_id.clear();
  Status s = PublishReceipt(PosixEnv(), dir_, missing);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("request_id"));
  WaitingReceipt bad_utf8 = Sample();
  bad_utf8.operation_id = "op-\xFF";
  EXPECT_EQ(EncodeReceipt(bad_utf8).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadReceipt(PosixEnv(), dir_).value(), std::nullopt);
}

TEST(ReceiptDecodeTest, EveryTruncationIsCorruption) {
  const std::string bytes = EncodeReceipt(Sample()).value();
  for (size_t length = 0; length < bytes.size(); ++length) {
    auto decoded = DecodeReceipt(std::string_view(bytes).substr(0, length));
    ASSERT_FALSE(decoded.ok()) << "length " << length;
    EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption) << "length " << length;
  }
  EXPECT_THAT(DecodeReceipt("").status().message(), HasSubstr("empty"));
}

TEST(ReceiptDecodeTest, EveryFlippedByteIsCorruptionOrInvisible) {
  const std::string bytes = EncodeReceipt(Sample()).value();
  int invisible = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned mask : {0x01u, 0x02u, 0x20u, 0x80u, 0xFFu}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(static_cast<unsigned char>(damaged[i]) ^ mask);
      auto decoded = DecodeReceipt(damaged);
      if (decoded.ok()) {
        ++invisible;
        EXPECT_EQ(*decoded, Sample()) << "byte " << i << " mask " << mask;
      } else {
        EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption)
            << "byte " << i << " mask " << mask << ": " << decoded.status().ToString();
      }
    }
  }
  // The checksum covers every member, so no flip should pass unnoticed at all.
  EXPECT_EQ(invisible, 0);
}

// DecodeReceipt keeps its results by the exact bytes: a repeat must give the very same result
// (receipt or error), and bytes differing by one bit must be decoded on their own, in either
// order, never answered with the other bytes' result.
TEST(ReceiptDecodeTest, RepeatedBytesGiveTheSameResultAndOneFlippedBitIsStillCaught) {
  const std::string bytes = EncodeReceipt(Sample()).value();
  std::string damaged = bytes;
  damaged[damaged.size() / 2] = static_cast<char>(damaged[damaged.size() / 2] ^ 0x01);
  for (int round = 0; round < 3; ++round) {
    auto intact = DecodeReceipt(bytes);
    ASSERT_TRUE(intact.ok()) << "round " << round << ": " << intact.status().ToString();
    EXPECT_EQ(*intact, Sample()) << "round " << round;
    auto bad = DecodeReceipt(damaged);
    ASSERT_FALSE(bad.ok()) << "round " << round;
    EXPECT_EQ(bad.status().code(), StatusCode::kCorruption) << "round " << round;
    EXPECT_EQ(bad.status().ToString(), DecodeReceipt(damaged).status().ToString());
  }
  Json other = SampleDoc();
  other["version"] = kReceiptVersion + 1;
  const std::string incompatible = Seal(other);
  EXPECT_EQ(DecodeReceipt(incompatible).status().code(), StatusCode::kIncompatible);
  EXPECT_EQ(DecodeReceipt(incompatible).status().code(), StatusCode::kIncompatible);
}

TEST_F(ReceiptTest, DamagedFileOnDiskIsCorruptionNamingThePath) {
  std::string bytes = EncodeReceipt(Sample()).value();
  bytes[bytes.size() / 2] ^= 0x04;
  ASSERT_TRUE(WriteFileAtomically(PosixEnv(), dir_, "waiting.json", bytes).ok());
  auto read = ReadReceipt(PosixEnv(), dir_);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(read.status().message(), HasSubstr("waiting.json"));
  ASSERT_TRUE(WriteFileAtomically(PosixEnv(), dir_, "waiting.json", "").ok());
  EXPECT_EQ(ReadReceipt(PosixEnv(), dir_).status().code(), StatusCode::kCorruption);
}

TEST(ReceiptDecodeTest, WellSealedButMalformedDocumentsAreCorruption) {
  struct Case {
    const char* name;
    std::function<void(Json&)> edit;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"missing field", [](Json& d) { d["body"].erase("request_id"); }, "'request_id'"},
      {"extra body field", [](Json& d) { d["body"]["extra"] = "x"; }, "members"},
      {"empty field", [](Json& d) { d["body"]["session_id"] = ""; }, "'session_id'"},
      {"non-string field", [](Json& d) { d["body"]["checkpoint_id"] = 3; }, "'checkpoint_id'"},
      {"wrong format", [](Json& d) { d["format"] = "other"; }, "format"},
      {"missing format", [](Json& d) { d.erase("format"); }, "format"},
      {"string version", [](Json& d) { d["version"] = "1"; }, "version"},
      {"body not object", [](Json& d) { d["body"] = Json::array(); }, "body"},
      {"unexpected member", [](Json& d) { d["note"] = "hi"; }, "'note'"},
  };
  for (const Case& c : cases) {
    Json doc = SampleDoc();
    c.edit(doc);
    auto decoded = DecodeReceipt(Seal(doc));
    ASSERT_FALSE(decoded.ok()) << c.name;
    EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption) << c.name;
    EXPECT_THAT(decoded.status().message(), HasSubstr(c.message)) << c.name;
  }
  Json no_checksum = SampleDoc();
  no_checksum.erase("checksum");
  EXPECT_THAT(DecodeReceipt(no_checksum.dump()).status().message(), HasSubstr("checksum"));
  EXPECT_EQ(DecodeReceipt("[1,2]").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(DecodeReceipt("\"x\"").status().code(), StatusCode::kCorruption);
}

TEST(ReceiptDecodeTest, AnotherFormatVersionIsIncompatibleNotCorrupt) {
  Json doc = SampleDoc();
  doc["version"] = 2;
  auto decoded = DecodeReceipt(Seal(doc));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kIncompatible);
}

TEST(ReceiptDecodeTest, UnknownGraphVersionIsLoadedForTheHostToJudge) {
  Json doc = SampleDoc();
  doc["body"]["graph_version"] = "SomeFutureGraph.v9";
  auto decoded = DecodeReceipt(Seal(doc));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->graph_version, "SomeFutureGraph.v9");
}

}  // namespace
}  // namespace stepfault::scenarios
