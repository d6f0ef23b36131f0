// Goal: a checkpoint whose checksum is valid but whose topology signature is malformed is a typed
// error (kCorruption), never an exception: CheckCompatibility validates before it compares, under
// the strict and the MAF-compatible profile, and DecodeCheckpoint rejects it before the engine
// reads it (issue 16, item 14).
// Method: take a real workflow's signature, damage one member at a time (wrong types, missing
// members), and call CheckCompatibility and DecodeCheckpoint on it; any throw fails the test.
#include "engine/compat.h"

#include <gtest/gtest.h>

#include "engine/checkpoint.h"
#include "engine/run_test_util.h"

namespace stepfault {
namespace {
using testing::Forward;

std::shared_ptr<Workflow> Sample() {
  auto wf = WorkflowBuilder(Forward("a"))
                .AddExecutor(Forward("b"))
                .AddExecutor(Forward("c"))
                .AddFanOutEdge("a", {"b", "c"})
                .AddFanInBarrierEdge({"b", "c"}, "a")
                .Build();
  SF_CHECK(wf.ok());
  return *wf;
}

std::vector<Json> Damaged(const Json& good) {
  std::vector<Json> out;
  auto with = [&](const Json::json_pointer& ptr, Json v) {
    Json j = good;
    j[ptr] = std::move(v);
    out.push_back(std::move(j));
  };
  with(Json::json_pointer("/edges"), 5);
  with(Json::json_pointer("/edges/0"), "x");
  with(Json::json_pointer("/edges/0/sources"), "a");
  with(Json::json_pointer("/edges/0/sources/0"), 7);
  with(Json::json_pointer("/edges/0/id"), "one");
  with(Json::json_pointer("/executors"), Json::array());
  with(Json::json_pointer("/executors/a"), 3);
  with(Json::json_pointer("/ports"), Json::object());
  with(Json::json_pointer("/ports/0"), 1);
  with(Json::json_pointer("/outputs"), "a");
  with(Json::json_pointer("/start"), Json::object());
  Json missing = good;
  missing.erase("edges");
  out.push_back(missing);
  out.push_back(Json(42));
  return out;
}

TEST(CompatTest, AMalformedSignatureIsCorruptionUnderEveryProfileNeverAThrow) {
  auto wf = Sample();
  Json good = wf->signature();
  good["ports"] = Json::array({Json{{"id", "p"}, {"request_type", "Q"}, {"response_type", "R"}}});
  for (const EngineProfile& profile : {EngineProfile(), EngineProfile::MafCompat()}) {
    for (const Json& bad : Damaged(good)) {
      Status s;
      EXPECT_NO_THROW(s = CheckCompatibility(bad, *wf, profile)) << bad.dump();
      EXPECT_EQ(s.code(), StatusCode::kCorruption) << bad.dump() << "\n" << s.ToString();
    }
  }
  EXPECT_TRUE(CheckCompatibility(wf->signature(), *wf, EngineProfile()).ok());
}

TEST(CompatTest, TheDecoderRejectsACheckpointWithAMalformedSignatureAndAValidChecksum) {
  auto wf = Sample();
  for (const Json& bad : Damaged(wf->signature())) {
    if (!bad.is_object()) continue;  // the decoder's own type check covers a non-object
    Checkpoint c;
    c.session_id = "s";
    c.workflow = bad;
    const std::string bytes = EncodeCheckpoint(c);  // sealed: the checksum is valid
    Status s;
    EXPECT_NO_THROW(s = DecodeCheckpoint(bytes).status());
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << bad.dump();
    EXPECT_NE(s.message().find("/body/workflow"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace stepfault
