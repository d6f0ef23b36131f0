// The engine's normalized trace (normalized_trace.h) on the shipped examples: steps and
// checkpoints as the differential format says, request names stable across a restore, restore and
// resume traces holding only what came after, and bad modes rejected with the range.
#include "scenarios/json/normalized_trace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace stepfault::scenarios {
namespace {

std::string Example(const std::string& name) {
  const char* dir = std::getenv("STEPFAULT_SOURCE_DIR");
  std::ifstream in(std::string(dir != nullptr ? dir : ".") + "/scenarios/json/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Json> Lines(const std::string& example, const std::string& mode) {
  auto m = TraceMode::Parse(mode);
  EXPECT_TRUE(m.ok());
  auto lines = EngineNormalizedTrace(Example(example), example, *m, EngineProfile::MafCompat());
  EXPECT_TRUE(lines.ok()) << lines.status().ToString();
  return lines.ok() ? *lines : std::vector<Json>{};
}

std::vector<Json> Of(const std::vector<Json>& lines, const std::string& kind) {
  std::vector<Json> out;
  for (const Json& l : lines) {
    if (l["line"] == kind) out.push_back(l);
  }
  return out;
}

TEST(NormalizedTrace, FanInRunHasOneCheckpointPerStepWithSortedMultisets) {
  const std::vector<Json> lines = Lines("fan-in-effects.json", "run");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], (Json{{"line", "begin"}, {"mode", "run"}}));
  const std::vector<Json> steps = Of(lines, "step");
  const std::vector<Json> cps = Of(lines, "checkpoint");
  ASSERT_EQ(steps.size(), cps.size());
  for (size_t i = 0; i < cps.size(); ++i) {
    EXPECT_EQ(steps[i]["checkpoint"], "cp" + std::to_string(i));
    EXPECT_EQ(cps[i]["name"], "cp" + std::to_string(i));
    EXPECT_EQ(cps[i]["parent"], i == 0 ? Json() : Json("cp" + std::to_string(i - 1)));
  }
  // The step that runs bill and pack together lists them sorted.
  EXPECT_EQ(steps[1]["completed"], Json::array({"bill", "pack"}));
  // After bill ran, the barrier holds its message and waits for ship.
  EXPECT_EQ(cps[1]["fan_in"]["audit<-bill,ship"]["unseen"], Json::array({"ship"}));
  EXPECT_EQ(cps[1]["fan_in"]["audit<-bill,ship"]["pending"].size(), 1u);
}

TEST(NormalizedTrace, RequestsAreNamedAndAnsweredFromTheScript) {
  const std::vector<Json> lines = Lines("review-pipeline.json", "run");
  const std::vector<Json> halts = Of(lines, "halt");
  ASSERT_GE(halts.size(), 1u);
  ASSERT_EQ(halts[0]["responses"].size(), 1u);
  EXPECT_EQ(halts[0]["responses"][0]["request"], "r1");
  EXPECT_EQ(halts[0]["responses"][0]["message"]["body"]["approved"], true);
}

TEST(NormalizedTrace, RestoreToAPendingRequestReemitsItFirst) {
  const std::vector<Json> run = Lines("review-pipeline.json", "run");
  int with_pending = -1;
  for (const Json& cp : Of(run, "checkpoint")) {
    if (!cp["pending"].empty()) with_pending = std::stoi(cp["name"].get<std::string>().substr(2));
  }
  ASSERT_GE(with_pending, 0);
  // Only resume: the fault-free run ends when fail-once fails, and an ended run refuses a live
  // restore (failed-step-ends-run, docs/engine-semantics.md §11.3).
  for (const char* kind : {"resume:"}) {
    const std::vector<Json> lines =
        Lines("review-pipeline.json", kind + std::to_string(with_pending));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[1]["line"], "prologue") << kind;
    EXPECT_EQ(lines[1]["requests"][0]["request"], "r1") << kind;
    // Only what came after: the new checkpoints are numbered after the run's.
    for (const Json& cp : Of(lines, "checkpoint")) {
      EXPECT_GE(std::stoi(cp["name"].get<std::string>().substr(2)),
                static_cast<int>(Of(run, "checkpoint").size()));
    }
  }
}

// The counters' state, named as maf-runner names MAF's (docs/engine-semantics.md 11.2): the
// private scope by its executor, a shared scope by '@' and its name.
TEST(NormalizedTrace, CounterStateIsNamedByExecutorOrSharedScopeAndSurvivesARestore) {
  const std::vector<Json> cps = Of(Lines("state-counters.json", "run"), "checkpoint");
  ASSERT_EQ(cps.size(), 4u);
  EXPECT_EQ(cps[1]["state"], (Json{{"@warehouse||packed", 1}, {"@warehouse||picked", 1}}));
  EXPECT_EQ(cps[2]["state"],
            (Json{{"@warehouse||packed", 1}, {"@warehouse||picked", 2}, {"audit||seen", 1}}));
  // Restored to cp1, recount reads the count pick published before the checkpoint.
  bool recounted = false;
  for (const Json& step : Of(Lines("state-counters.json", "restore:1"), "step")) {
    for (const Json& o : step["outputs"]) {
      if (o["executor"] != "recount") continue;
      EXPECT_EQ(o["message"]["body"]["count_recount"], 2);
      recounted = true;
    }
  }
  EXPECT_TRUE(recounted);
}

// Two counters write one key of a shared scope in one step: the engine ends the run at that step
// with a WorkflowError and no checkpoint (MAF runs on: maf-state-conflict-runs-on).
TEST(NormalizedTrace, TwoWritersOfOneSharedKeyEndTheRunWithoutACheckpoint) {
  Json doc = Json::parse(Example("state-counters.json"));
  doc["executors"][2]["key"] = "picked";  // pack now writes pick's key in the same step
  doc["expect"] = Json{{"effects", Json::array()}, {"outputs", Json::array()}};
  auto lines = EngineNormalizedTrace(doc.dump(), "conflict.json", {}, EngineProfile::MafCompat());
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  const std::vector<Json> steps = Of(*lines, "step");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1]["errors"], 1);
  EXPECT_EQ(steps[1]["checkpoint"], Json());
  EXPECT_EQ(steps[1]["completed"], Json::array({"pack", "pick"}));
  EXPECT_EQ(Of(*lines, "checkpoint").size(), 1u);
  EXPECT_EQ(Of(*lines, "halt").back()["status"], "ended");
}

TEST(NormalizedTrace, SameInputsGiveTheSameTrace) {
  EXPECT_EQ(Lines("fan-in-effects.json", "resume:1"), Lines("fan-in-effects.json", "resume:1"));
}

TEST(NormalizedTrace, ModesParseAndBadOnesAreRejected) {
  EXPECT_EQ(TraceMode::Parse("resume:3")->ToString(), "resume:3");
  EXPECT_EQ(TraceMode::Parse("restore:0")->kind, TraceMode::kRestore);
  EXPECT_FALSE(TraceMode::Parse("resume:").ok());
  EXPECT_FALSE(TraceMode::Parse("resume:-1").ok());
  EXPECT_FALSE(TraceMode::Parse("rerun").ok());
  auto out_of_range =
      EngineNormalizedTrace(Example("fan-in-effects.json"), "f", TraceMode{TraceMode::kResume, 99},
                            EngineProfile::MafCompat());
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.status().message().find("checkpoints 0.."), std::string::npos);
}

}  // namespace
}  // namespace stepfault::scenarios
