// Goal: the shipped JSON scenarios get the same exploration as the built-in ones: the fault-free
// run completes without violations and meets the document's "expect"; a crash or a power loss at
// any single window (and each recovery-side action) is recovered without violations under the
// strict profile; and the historical engine bugs each example exercises are caught.
// Method: run the fault-free reference, then one plan per (life, window, action) of that
// reference, through the life runner; for the mutants, search the same sweep for a violation with
// the expected invariant id. The crash/powerloss sweep takes every window; the other actions take
// every 5th window (corrupt and fail-after-write every one; all of them with STEPFAULT_LONG=1).
// Duplicate and conflicting responses (issue 12): explored at depth 1 on the review pipeline, a
// conflicting response replayed exactly and checked against the durable request ledger, and a
// replay rule that accepts the conflict (a HostSeams rule) caught by INV-DECISION.
#include "scenarios/json/json_scenario.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "engine/env.h"
#include "faults/points.h"
#include "properties/life_runner.h"
#include "properties/seam_scenario_test_util.h"
#include "scenarios/invariants.h"
#include "scenarios/json/json_responses.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties {
namespace {

// Plans that put one action at one window of one life of `reference`, leaving earlier lives
// alone. `actions` empty: every action that applies at the window, at every `stride`-th window,
// and corrupt and fail-after-write (rare windows) at every window.
std::vector<faults::Plan> SingleFaultPlans(const Execution& reference,
                                           const std::vector<faults::FaultAction>& actions,
                                           size_t stride = 1) {
  std::vector<faults::Plan> plans;
  for (size_t life = 0; life < reference.lives.size(); ++life) {
    const auto& windows = reference.lives[life].windows;
    for (size_t i = 0; i < windows.size(); ++i) {
      std::vector<faults::FaultAction> chosen = actions;
      if (actions.empty()) {
        for (const faults::FaultAction& a : faults::ApplicableFaultActions(windows[i].point)) {
          const bool rare = a.kind == faults::FaultActionKind::kCorrupt ||
                            a.kind == faults::FaultActionKind::kFailAfterWrite;
          if (rare || i % stride == 0) chosen.push_back(a);
        }
      } else if (i % stride != 0) {
        continue;
      }
      for (const faults::FaultAction& action : chosen) {
        auto fault = faults::FaultAtWindow(action, windows[i]);
        SF_CHECK(fault.ok());
        faults::Plan plan;
        plan.faults.assign(life, faults::Fault::None());
        plan.faults.push_back(*fault);
        plans.push_back(std::move(plan));
      }
    }
  }
  return plans;
}

// The broader sweeps take every window under STEPFAULT_LONG=1 and every 5th one otherwise, to
// keep the default run (and the sanitizer build) fast.
size_t WindowStride() { return test_env::LongRun() ? 1 : 5; }

std::string Violations(const Execution& ex) {
  std::string out;
  for (const auto& v : ex.violations) out += v.invariant + ": " + v.message + "\n";
  return out;
}

class JsonScenarioExplorationTest : public ::testing::TestWithParam<std::string> {};

TEST_P(JsonScenarioExplorationTest, FaultFreeRunCompletesMeetsExpectAndIsDeterministic) {
  auto scenario = testing::JsonExample(GetParam());
  RunConfig config;
  config.seed = 11;
  Execution a = RunPlan(*scenario, faults::Plan{}, config);
  EXPECT_TRUE(a.completed) << a.trace;
  EXPECT_TRUE(a.violations.empty()) << a.trace;
  std::vector<scenarios::LifeReport> reports;
  for (const LifeRecord& l : a.lives) reports.push_back(l.report);
  EXPECT_EQ(scenarios::JsonScenarioObservedOutputs(reports),
            scenarios::JsonScenarioExpectedOutputs(*scenario))
      << a.trace;
  Execution b = RunPlan(*scenario, faults::Plan{}, config);
  EXPECT_EQ(a.trace, b.trace);
}

TEST_P(JsonScenarioExplorationTest, EveryWindowTimesCrashAndPowerLossHasNoViolationUnderStrict) {
  auto scenario = testing::JsonExample(GetParam());
  RunConfig config;
  config.seed = 5;
  const Execution reference = RunPlan(*scenario, faults::Plan{}, config);
  ASSERT_TRUE(reference.completed) << reference.trace;
  const auto plans =
      SingleFaultPlans(reference, {faults::FaultAction::Of(faults::FaultActionKind::kCrash),
                                   faults::FaultAction::Of(faults::FaultActionKind::kPowerLoss)});
  ASSERT_GT(plans.size(), 50u);
  int fired = 0;
  for (const faults::Plan& plan : plans) {
    Execution ex = RunPlan(*scenario, plan, config);
    ASSERT_TRUE(ex.violations.empty()) << faults::PrintPlan(plan) << "\n" << ex.trace;
    ASSERT_TRUE(ex.completed) << faults::PrintPlan(plan) << "\n" << ex.trace;
    for (const LifeRecord& l : ex.lives) fired += l.fired ? 1 : 0;
  }
  EXPECT_EQ(fired, static_cast<int>(plans.size()));  // every plan really struck its window
}

TEST_P(JsonScenarioExplorationTest,
       ApplicableSingleFaultsAcrossTheWindowsHaveNoViolationUnderStrict) {
  auto scenario = testing::JsonExample(GetParam());
  RunConfig config;
  config.seed = 5;
  const Execution reference = RunPlan(*scenario, faults::Plan{}, config);
  ASSERT_TRUE(reference.completed) << reference.trace;
  const auto plans = SingleFaultPlans(reference, {}, WindowStride());
  std::set<std::string> kinds;
  for (const faults::Plan& plan : plans) {
    kinds.insert(std::string(faults::FaultActionKindName(plan.faults.back().action.kind)));
    Execution ex = RunPlan(*scenario, plan, config);
    ASSERT_TRUE(ex.violations.empty()) << faults::PrintPlan(plan) << "\n" << ex.trace;
  }
  // ioerror, corrupt and fail-after-write windows exist in both examples.
  for (const char* kind : {"ioerror", "corrupt", "fail-after-write"})
    EXPECT_EQ(kinds.count(kind), 1u) << kind;
}

TEST_P(JsonScenarioExplorationTest,
       EveryRecoveryActionAfterCrashesAcrossTheFirstLifeHasNoViolationUnderStrict) {
  auto scenario = testing::JsonExample(GetParam());
  RunConfig config;
  config.seed = 5;
  // A crash at each window of the first life; the second life applies the recovery action when it
  // resumes (a crash before the first checkpoint makes it a fresh start instead).
  const Execution reference = RunPlan(*scenario, faults::Plan{}, config);
  const auto& windows = reference.lives.front().windows;
  ASSERT_GT(windows.size(), 10u);
  for (const faults::FaultAction& action : scenario->RecoveryActions()) {
    auto recovery = faults::Fault::Parse(faults::FaultActionName(action) + "@host.resume#1");
    ASSERT_TRUE(recovery.ok()) << recovery.status().ToString();
    int applied = 0;
    for (size_t i = 0; i < windows.size(); i += WindowStride()) {
      const faults::Window& w = windows[i];
      auto crash =
          faults::FaultAtWindow(faults::FaultAction::Of(faults::FaultActionKind::kCrash), w);
      ASSERT_TRUE(crash.ok());
      faults::Plan plan{{*crash, *recovery}};
      Execution ex = RunPlan(*scenario, plan, config);
      ASSERT_TRUE(ex.violations.empty()) << faults::PrintPlan(plan) << "\n" << ex.trace;
      ASSERT_TRUE(ex.completed) << faults::PrintPlan(plan) << "\n" << ex.trace;
      ASSERT_GE(ex.lives.size(), 2u);
      if (ex.lives[1].report.command == "resume") {
        EXPECT_TRUE(ex.lives[1].fired.has_value()) << faults::PrintPlan(plan);
        ++applied;
      }
    }
    EXPECT_GT(applied, 0) << faults::FaultActionName(action);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, JsonScenarioExplorationTest,
                         ::testing::Values("review-pipeline.json", "fan-in-effects.json"),
                         [](const auto& info) {
                           return info.param == "review-pipeline.json" ? "ReviewPipeline"
                                                                       : "FanInEffects";
                         });

TEST(JsonScenarioTest, TheReviewPipelineFailsOnceByDesignAndRecoversInTheNextLife) {
  RunConfig config;
  Execution ex = RunPlan(*testing::JsonExample("review-pipeline.json"), faults::Plan{}, config);
  ASSERT_EQ(ex.lives.size(), 2u) << ex.trace;
  EXPECT_EQ(ex.lives[0].report.status.code(), StatusCode::kHandlerFailed) << ex.trace;
  EXPECT_EQ(ex.lives[1].report.command, "resume");
  EXPECT_TRUE(ex.lives[1].report.completed);
}

// Searches the crash sweep under `profile` for a violation of `invariant`.
std::string FirstPlanViolating(const std::string& file, const EngineProfile& profile,
                               const std::string& invariant) {
  auto scenario = testing::JsonExample(file);
  RunConfig config;
  config.seed = 5;
  const Execution reference = RunPlan(*scenario, faults::Plan{}, config);
  config.profile = profile;
  for (const faults::Plan& plan :
       SingleFaultPlans(reference, {faults::FaultAction::Of(faults::FaultActionKind::kCrash)})) {
    Execution ex = RunPlan(*scenario, plan, config);
    for (const auto& v : ex.violations) {
      if (v.invariant == invariant) return faults::PrintPlan(plan) + "\n" + Violations(ex);
    }
  }
  return "";
}

TEST(JsonScenarioTest, RequestsNotReemittedIsCaughtAsINVREQIDByTheReviewPipeline) {
  EngineProfile profile;
  profile.requests_not_reemitted = true;
  const std::string found = FirstPlanViolating("review-pipeline.json", profile, "INV-REQID");
  EXPECT_FALSE(found.empty()) << "no single crash exposed requests_not_reemitted";
}

TEST(JsonScenarioTest, FanInStateNotCheckpointedIsCaughtAsINVALOByTheFanInExample) {
  EngineProfile profile;
  profile.fan_in_state_not_checkpointed = true;
  const std::string found = FirstPlanViolating("fan-in-effects.json", profile, "INV-ALO");
  EXPECT_FALSE(found.empty()) << "no single crash exposed fan_in_state_not_checkpointed";
}

// Every misuse cell of the review pipeline (its port answers from a script) runs and holds.
TEST(JsonScenarioTest, DuplicateAndConflictingResponsesAreExploredAndHold) {
  ScenarioExploration e = testing::ExploreDepth1(*testing::JsonExample("review-pipeline.json"),
                                                 {"duplicate-response", "conflicting-response"});
  EXPECT_TRUE(e.violations.empty()) << testing::Describe(e);
  std::set<std::string> ran;
  for (const reports::Cell& c : e.report.cells) {
    if (c.runs > 0) ran.insert(c.action);
  }
  EXPECT_EQ(ran, (std::set<std::string>{"duplicate-response", "conflicting-response",
                                        "conflicting-response:request-id"}));
}

// Runs `plan` on the review pipeline and returns the execution and the recorded responses of the
// request ledger as the last check read them from the world (durable bytes, not the host's facts).
std::pair<Execution, Json> RunReadingLedger(const std::string& plan_text) {
  auto responses = std::make_shared<Json>(Json::object());
  testing::SeamScenario reading(
      testing::JsonExample("review-pipeline.json"), nullptr, [responses](scenarios::HostEnv& env) {
        *responses = Json::object();
        const Json ledger = scenarios::ReadRequestLedger(env.env, env.dir);
        for (const auto& [id, entry] : ledger.items()) {
          if (entry.contains("response")) {
            (*responses)[id] = entry["response"];
          }
        }
      });
  auto plan = faults::ParsePlan(plan_text);
  SF_CHECK(plan.ok());
  Execution ex = RunPlan(reading, *plan, RunConfig{});
  return {std::move(ex), *responses};
}

// One plan each: the duplicate is rejected by the engine and the run completes once; the
// conflicting response is refused by the host and a response to a request that is not pending is
// rejected by the engine; in every case the ledger's recorded responses are the fault-free run's.
TEST(JsonScenarioTest, ADuplicateIsRejectedAndAConflictIsRefusedWithoutChangingTheLedger) {
  const auto [reference, recorded] = RunReadingLedger("none");
  ASSERT_TRUE(reference.completed) << reference.trace;
  ASSERT_FALSE(recorded.empty());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"none;duplicate-response@host.resume#1", "duplicate_rejected"},
      {"none;conflicting-response@host.resume#1", "conflicting_rejected"},
      {"none;conflicting-response:request-id@host.resume#1", "mismatched_rejected"}};
  for (const auto& [text, fact] : cases) {
    const auto [ex, responses] = RunReadingLedger(text);
    EXPECT_TRUE(ex.violations.empty()) << text << "\n" << Violations(ex);
    EXPECT_TRUE(ex.completed) << text << "\n" << ex.trace;
    ASSERT_EQ(ex.lives.size(), 2u) << text;
    const Json& facts = ex.lives[1].report.facts;
    EXPECT_EQ(facts.value(fact, false), true) << text << ": " << facts.dump();
    EXPECT_EQ(responses, recorded) << text;
  }
}

// A replay rule that takes a conflicting response for the recorded one records and sends it: the
// ledger's recorded response changes, which INV-DECISION sees in the durable ledger.
TEST(JsonScenarioTest, AReplayRuleAcceptingAConflictingResponseIsCaughtByINVDECISION) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->same_response = [](const Json&, const Json&) { return true; };
  testing::SeamScenario buggy(testing::JsonExample("review-pipeline.json"),
                              [seams](scenarios::HostEnv& env) { env.seams = seams; });
  ScenarioExploration e = testing::ExploreDepth1(buggy, {"conflicting-response"});
  bool changed = false;
  for (const reports::Violation& v : e.violations) {
    changed = changed || (v.invariant == scenarios::kInvDecision &&
                          v.message.find("recorded response") != std::string::npos);
  }
  EXPECT_TRUE(changed) << testing::Describe(e);
}

// A host that resumes one checkpoint too early (the parent of the newest, an off-by-one in its
// choice of "latest"; the store and the engine are untouched, only the host's resume call differs
// through HostSeams::resume): when the newest checkpoint already consumed the review's response,
// the parent still has the request pending, the host re-emits it and answers it from its ledger
// with the recorded response, and the engine accepts it again: the run resumes twice on one
// response. Exploration of the review pipeline reports it from durable bytes alone, as two stored
// checkpoints that both consumed the request (INV-REQID, CheckConsumedResponses). The control
// (the faithful resume) is DuplicateAndConflictingResponsesAreExploredAndHold and the crash
// sweeps above.
TEST(JsonScenarioTest, AResumeOfAnOlderCheckpointReusingAConsumedResponseIsCaughtByINVREQID) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->resume = [](const WorkflowSpec&, std::shared_ptr<Workflow> built,
                     const CheckpointInfo& checkpoint,
                     RunOptions options) -> Result<std::unique_ptr<StreamingRun>> {
    auto newest = options.checkpoints->Lookup(checkpoint);
    const CheckpointInfo chosen =
        newest.ok() && (*newest)->parent ? *(*newest)->parent : checkpoint;  // the bug
    return StreamingRun::Resume(std::move(built), chosen, std::move(options));
  };
  testing::SeamScenario buggy(testing::JsonExample("review-pipeline.json"),
                              [seams](scenarios::HostEnv& env) { env.seams = seams; });
  ScenarioExploration e = testing::ExploreDepth1(buggy, {"crash"});
  bool twice = false;
  for (const reports::Violation& v : e.violations) {
    twice = twice || (v.invariant == scenarios::kInvReqid &&
                      v.message.find("resumed the run twice") != std::string::npos);
  }
  EXPECT_TRUE(twice) << testing::Describe(e);

  ScenarioExploration control =
      testing::ExploreDepth1(*testing::JsonExample("review-pipeline.json"), {"crash"});
  EXPECT_TRUE(control.violations.empty()) << testing::Describe(control);
}

}  // namespace
}  // namespace stepfault::properties
