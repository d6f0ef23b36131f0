// Goal: the artifact-boundary records keep their promises: a repeated provider call is a new,
// visible attempt; the terminal publication is deduplicated and keeps the first value; the
// accepted artifact round-trips and a damaged one is kCorruption, never half-read; the boundary's
// validation accepts exactly what the providers answered.
// Method: the records on a scratch directory of the real file system, reopened as a later process
// would; every truncation of a published artifact; manifests that break one rule each.
#include "scenarios/artifact_boundary/artifact_boundary_records.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "scenarios/artifact_boundary/artifact_boundary_workflow.h"
#include "tools/testing/test_env.h"

namespace stepfault::scenarios {
namespace {

namespace fs = std::filesystem;

class ArtifactRecordsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_env::ScratchDir("artifact"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<ArtifactLedger> OpenLedger() {
    auto ledger = ArtifactLedger::Open(dir_, "", nullptr);
    EXPECT_TRUE(ledger.ok()) << ledger.status().ToString();
    return ledger.ok() ? std::move(ledger).value() : nullptr;
  }

  static Json Manifest(int attempt_a, int attempt_b) {
    return Json{
        {kProducerAId,
         {{"attempt", attempt_a}, {"content", ProducerContent(5, kProducerAId, attempt_a)}}},
        {kProducerBId,
         {{"attempt", attempt_b}, {"content", ProducerContent(5, kProducerBId, attempt_b)}}}};
  }

  std::string dir_;
};

TEST_F(ArtifactRecordsTest, RepeatedProviderCallsAreNewAttemptsPerPhaseAndSurviveAReopen) {
  {
    auto ledger = OpenLedger();
    EXPECT_EQ(*ledger->RecordProviderCall(kProducerAId, "original"), 1);
    EXPECT_EQ(*ledger->RecordProviderCall(kProducerBId, "original"), 1);
    EXPECT_EQ(*ledger->RecordProviderCall(kProducerAId, "original"), 2);
  }
  auto ledger = OpenLedger();
  EXPECT_EQ(*ledger->RecordProviderCall(kProducerAId, "restored"), 3);
  auto calls = ledger->ProviderCalls();
  ASSERT_TRUE(calls.ok());
  ASSERT_EQ(calls->size(), 4u);
  EXPECT_EQ((*calls)[1].phase, kProducerBId);
  EXPECT_EQ((*calls)[3].attempt, 3);
  EXPECT_EQ((*calls)[3].segment, "restored");
}

TEST_F(ArtifactRecordsTest, PublicationIsDeduplicatedAndKeepsTheFirstValueAcrossProcesses) {
  {
    auto ledger = OpenLedger();
    EXPECT_FALSE(ledger->Publication("job")->has_value());
    auto first = ledger->Publish("job", "output-1");
    ASSERT_TRUE(first.ok());
    EXPECT_TRUE(first->newly);
    auto again = ledger->Publish("job", "output-1");
    EXPECT_FALSE(again->newly);
  }
  auto ledger = OpenLedger();
  auto other = ledger->Publish("job", "output-2");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->newly);
  EXPECT_EQ(other->value, "output-1");
  EXPECT_EQ(*ledger->PublicationCount("job"), 1);
  EXPECT_EQ(**ledger->Publication("job"), "output-1");
  EXPECT_TRUE(ledger->Publish("another-job", "x")->newly);
  EXPECT_TRUE(ledger->ProviderCalls()->empty());  // publications are not provider calls
}

TEST_F(ArtifactRecordsTest, AcceptedArtifactIsAbsentThenRoundTrips) {
  auto none = ReadAcceptedArtifact(PosixEnv(), dir_);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  AcceptedArtifact a{"id-1", Manifest(1, 2), 3};
  ASSERT_TRUE(EnsureArtifactsDir(PosixEnv(), dir_).ok());
  ASSERT_TRUE(EnsureArtifactsDir(PosixEnv(), dir_).ok());  // idempotent
  ASSERT_TRUE(PublishAcceptedArtifact(PosixEnv(), dir_, a).ok());
  auto read = ReadAcceptedArtifact(PosixEnv(), dir_);
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ((*read)->ToJson(), a.ToJson());
  EXPECT_FALSE(fs::exists(fs::path(dir_) / kArtifactsDir / "accepted.json.tmp"));
}

TEST_F(ArtifactRecordsTest, EveryTruncationOrShapeErrorOfTheArtifactIsCorruption) {
  ASSERT_TRUE(EnsureArtifactsDir(PosixEnv(), dir_).ok());
  const std::string path = (fs::path(dir_) / kArtifactsDir / kAcceptedArtifactFile).string();
  const std::string bytes = AcceptedArtifact{"id-1", Manifest(1, 1), 2}.ToJson().dump();
  // Damage is written directly (no fsync): this is about reading, not publishing.
  auto write = [&](const std::string& text) { std::ofstream(path, std::ios::trunc) << text; };
  for (size_t n = 0; n < bytes.size(); ++n) {
    write(bytes.substr(0, n));
    auto read = ReadAcceptedArtifact(PosixEnv(), dir_);
    EXPECT_EQ(read.status().code(), StatusCode::kCorruption) << n;
  }
  for (const char* text :
       {"[]", "{\"artifact_id\":1,\"manifest\":{},\"provider_calls_at_acceptance\":2}",
        "{\"artifact_id\":\"x\",\"manifest\":[],\"provider_calls_at_acceptance\":2}",
        "{\"artifact_id\":\"x\",\"manifest\":{}}"}) {
    write(text);
    EXPECT_EQ(ReadAcceptedArtifact(PosixEnv(), dir_).status().code(), StatusCode::kCorruption)
        << text;
  }
}

TEST(ArtifactBoundaryValidationTest, AcceptsExactlyWhatTheProvidersAnswered) {
  const Json good =
      Json{{kProducerAId, {{"attempt", 2}, {"content", ProducerContent(5, kProducerAId, 2)}}},
           {kProducerBId, {{"attempt", 1}, {"content", ProducerContent(5, kProducerBId, 1)}}}};
  EXPECT_TRUE(ValidateManifest(5, good).ok());
  EXPECT_FALSE(ValidateManifest(6, good).ok());  // another run's answers
  Json missing = good;
  missing.erase(kProducerBId);
  EXPECT_FALSE(ValidateManifest(5, missing).ok());
  Json extra = good;
  extra["producer-c"] = good[kProducerAId];
  EXPECT_FALSE(ValidateManifest(5, extra).ok());
  Json wrong_attempt = good;
  wrong_attempt[kProducerAId]["attempt"] = 1;  // content of attempt 2 claimed as attempt 1
  EXPECT_FALSE(ValidateManifest(5, wrong_attempt).ok());
  Json no_content = good;
  no_content[kProducerBId].erase("content");
  EXPECT_FALSE(ValidateManifest(5, no_content).ok());
  EXPECT_NE(ProducerContent(5, kProducerAId, 1), ProducerContent(5, kProducerAId, 2));
  EXPECT_NE(ArtifactIdOf(5, good), ArtifactIdOf(5, missing));
}

TEST(ArtifactBoundaryValidationTest, SynthesisNamesTheArtifactAndBothContents) {
  AcceptedArtifact a{"id-7",
                     Json{{kProducerAId, {{"attempt", 1}, {"content", "A"}}},
                          {kProducerBId, {{"attempt", 1}, {"content", "B"}}}},
                     2};
  EXPECT_EQ(Synthesize(a), "synthesis of id-7: A B");
}

}  // namespace
}  // namespace stepfault::scenarios
