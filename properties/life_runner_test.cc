// Goal: the life runner runs a scenario's fault-free reference to completion with no violation,
// deterministically, and a death at a window really kills a life and is recovered from.
// A RunMemo (shared prefixes, continuations and crash-state lives) gives the same executions as
// running from scratch, and really reuses.
// Method: run the built-in scenarios fault-free twice and compare traces; inject a crash at a
// recorded window and check the next life recovers; run crash-then-power-loss plans of every
// window of approval's first recovery life with and without a memo and compare whole executions;
// the same for every one- and two-fault plan of the toy whose oracle reports each life's history,
// where different histories reach equal crash states; both also reuse the check after a death.
// Every crash plan of approval's `start` life with and without a memo: crash states differ, but
// the recovery (`start` again) converges, so the `resume` after it is reused across them. Every
// death action at every window of approval's first life over the SQLite store, derived from one
// recording, runs as the lived death.
#include "properties/life_runner.h"

#include <gtest/gtest.h>

#include "faults/points.h"
#include "properties/toy_scenario_test_util.h"
#include "scenarios/registry.h"
#include "scenarios/scenario.h"

namespace stepfault::properties {
namespace {

// Runs `plan` from scratch and through `memo`; the two executions must be the same, life by life.
void ExpectReuseRunsAsFromScratch(const scenarios::Scenario& scenario, const faults::Plan& plan,
                                  const RunConfig& config, RunMemo* memo) {
  const Execution scratch = RunPlan(scenario, plan, config);
  const Execution reused = RunPlan(scenario, plan, config, memo);
  ASSERT_EQ(reused.trace, scratch.trace) << faults::PrintPlan(plan);
  EXPECT_EQ(reused.final_digest, scratch.final_digest);
  ASSERT_EQ(reused.lives.size(), scratch.lives.size());
  for (size_t i = 0; i < scratch.lives.size(); ++i) {
    EXPECT_EQ(reused.lives[i].windows, scratch.lives[i].windows);
    EXPECT_EQ(reused.lives[i].world_digest, scratch.lives[i].world_digest);
  }
}

// approval over the SQLite store (seed 11) and its fault-free execution.
struct ApprovalOverSqlite {
  std::shared_ptr<const scenarios::Scenario> scenario = scenarios::FindScenario("approval");
  RunConfig config = [] {
    RunConfig c;
    c.seed = 11;
    c.checkpoint_store = "sqlite";
    return c;
  }();
  Execution reference = scenario ? RunPlan(*scenario, faults::Plan{}, config) : Execution{};
};

TEST(LifeRunnerTest, EveryBuiltinScenarioCompletesFaultFreeWithoutViolationsDeterministically) {
  for (const auto& scenario : scenarios::BuiltinScenarios()) {
    RunConfig config;
    config.seed = 7;
    Execution a = RunPlan(*scenario, faults::Plan{}, config);
    EXPECT_TRUE(a.completed) << scenario->name() << "\n" << a.trace;
    EXPECT_TRUE(a.violations.empty()) << scenario->name() << "\n" << a.trace;
    EXPECT_GT(a.lives.front().windows.size(), 5u) << scenario->name();
    Execution b = RunPlan(*scenario, faults::Plan{}, config);
    EXPECT_EQ(a.trace, b.trace) << scenario->name();
    // The windows of the fault-free run are the same list on every run.
    ASSERT_EQ(a.lives.size(), b.lives.size());
    for (size_t i = 0; i < a.lives.size(); ++i) EXPECT_EQ(a.lives[i].windows, b.lives[i].windows);
  }
}

TEST(LifeRunnerTest, ACrashAtARecordedWindowKillsTheLifeAndTheNextLifeRecovers) {
  auto scenario = scenarios::FindScenario("fan-in");
  ASSERT_NE(scenario, nullptr);
  RunConfig config;
  Execution reference = RunPlan(*scenario, faults::Plan{}, config);
  const auto& windows = reference.lives.front().windows;
  ASSERT_GT(windows.size(), 10u);
  const faults::Window w = windows[windows.size() / 2];
  auto plan = faults::ParsePlan("crash@" + w.point + "#" + std::to_string(w.occurrence));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  Execution ex = RunPlan(*scenario, *plan, config);
  ASSERT_GE(ex.lives.size(), 2u) << ex.trace;
  EXPECT_EQ(ex.lives[0].death, "crash");
  EXPECT_TRUE(ex.completed) << ex.trace;
  EXPECT_TRUE(ex.violations.empty()) << ex.trace;
}

TEST(LifeRunnerTest, AMemoGivesTheSameExecutionsAsRunningEveryPlanFromScratchAndReuses) {
  auto scenario = scenarios::FindScenario("approval");
  ASSERT_NE(scenario, nullptr);
  RunConfig config;
  config.seed = 3;
  const Execution reference = RunPlan(*scenario, faults::Plan{}, config);
  const auto& windows = reference.lives.front().windows;
  ASSERT_GT(windows.size(), 20u);
  const faults::Window first = windows[windows.size() / 3];
  const std::string prefix = "crash@" + first.point + "#" + std::to_string(first.occurrence);
  auto crashed = faults::ParsePlan(prefix);
  ASSERT_TRUE(crashed.ok());
  const Execution recovery = RunPlan(*scenario, *crashed, config);
  ASSERT_GE(recovery.lives.size(), 2u) << recovery.trace;
  RunMemo memo;
  int compared = 0;
  for (const faults::Window& w : recovery.lives[1].windows) {
    for (const char* action : {"crash", "powerloss"}) {
      auto plan = faults::ParsePlan(prefix + ";" + action + "@" + w.point + "#" +
                                    std::to_string(w.occurrence));
      ASSERT_TRUE(plan.ok());
      ASSERT_NO_FATAL_FAILURE(ExpectReuseRunsAsFromScratch(*scenario, *plan, config, &memo));
      ++compared;
    }
  }
  const RunMemo::Stats stats = memo.stats();
  EXPECT_EQ(stats.prefix_hits + stats.prefix_misses, compared);
  EXPECT_EQ(stats.prefix_misses, 1);  // every plan shares the crashed first life
  EXPECT_GT(stats.continuation_hits, 0);
  // Siblings dying into an equal world with an equal history share the check after the death.
  EXPECT_GT(stats.death_check_hits, 0);
}

// Deaths derived from one recording of the fault-free life: every death action applicable at every
// window of approval's first life over the SQLite store (deaths inside SQLite's journal and WAL
// writes included, where the host goes on with I/O errors after the death) gives the execution run
// from scratch gives, and none of those lives is lived.
TEST(LifeRunnerTest, EveryDeathDerivedFromOneRecordingRunsAsTheLivedDeath) {
  const ApprovalOverSqlite approval;
  ASSERT_NE(approval.scenario, nullptr);
  RunMemo memo;
  int compared = 0;
  bool inside_sqlite = false;
  for (const faults::Window& w : approval.reference.lives.front().windows) {
    for (const faults::FaultAction& a : faults::ApplicableFaultActions(w.point)) {
      if (!faults::IsDeath(a)) continue;
      auto fault = faults::FaultAtWindow(a, w);
      ASSERT_TRUE(fault.ok());
      inside_sqlite = inside_sqlite || w.point.find("[journal]") != std::string::npos;
      ASSERT_NO_FATAL_FAILURE(ExpectReuseRunsAsFromScratch(
          *approval.scenario, faults::Plan{{*fault}}, approval.config, &memo));
      ++compared;
    }
  }
  EXPECT_TRUE(inside_sqlite);
  const RunMemo::Stats stats = memo.stats();
  EXPECT_GT(compared, 100);
  EXPECT_EQ(stats.recordings, 1);
  EXPECT_EQ(stats.derived_lives, compared);
  EXPECT_EQ(stats.lived_past_bound, 0);
}

// One byte budget over every kept table: a memo far smaller than what the plans keep evicts, holds
// no more than its budget, and still gives every plan's execution from scratch; the recording
// every plan derives its death from stays in its share, so the life is recorded once.
TEST(LifeRunnerTest, AMemoWithinASmallBudgetEvictsAndStillGivesTheSameExecutions) {
  const ApprovalOverSqlite approval;
  ASSERT_NE(approval.scenario, nullptr);
  std::vector<faults::Plan> plans;
  for (const faults::Window& w : approval.reference.lives.front().windows) {
    auto fault = faults::FaultAtWindow(faults::FaultAction{faults::FaultActionKind::kCrash}, w);
    ASSERT_TRUE(fault.ok());
    plans.push_back(faults::Plan{{*fault}});
  }
  ASSERT_GT(plans.size(), 20u);
  // What the recording and one plan's entries hold: with three times that, the recording's share
  // (nine twentieths) keeps it, and the other tables fill up long before the last plan.
  uint64_t first_plan = 0;
  {
    RunMemo memo;
    RunPlan(*approval.scenario, plans.front(), approval.config, &memo);
    first_plan = memo.stats().kept_bytes_peak;
  }
  ASSERT_GT(first_plan, 0u);
  const uint64_t budget = 3 * first_plan;
  RunMemo memo(budget);
  for (const faults::Plan& plan : plans) {
    ASSERT_NO_FATAL_FAILURE(
        ExpectReuseRunsAsFromScratch(*approval.scenario, plan, approval.config, &memo));
  }
  const RunMemo::Stats stats = memo.stats();
  EXPECT_GT(stats.kept_evicted, 0);
  EXPECT_LE(stats.kept_bytes_peak, budget);
  EXPECT_EQ(stats.recordings, 1);
  // The recording holds at most half the budget: the windows past it are lived.
  EXPECT_GT(stats.derived_lives, 0);
  EXPECT_EQ(stats.derived_lives + stats.lived_past_bound, static_cast<int64_t>(plans.size()));
}

// Crash-state reuse: plans whose first lives differ (crash or power loss, at any window) and leave
// equal worlds share the lives after them; the oracle's violations name the history, so a check
// run with the wrong one would differ from the execution run from scratch.
TEST(LifeRunnerTest, CrashStateLivesAreReusedAcrossHistoriesAndGiveTheSameExecutions) {
  const testing::ToyScenario toy(testing::ToyScenario::Mode::kHistoryChecked);
  ASSERT_FALSE(toy.LifeReadsPrevious());
  RunConfig config;
  config.seed = 5;
  const Execution reference = RunPlan(toy, faults::Plan{}, config);
  RunMemo memo;
  int compared = 0;
  for (const faults::Window& first : reference.lives.front().windows) {
    for (const char* first_action : {"crash", "powerloss"}) {
      const std::string prefix =
          std::string(first_action) + "@" + first.point + "#" + std::to_string(first.occurrence);
      auto one = faults::ParsePlan(prefix);
      ASSERT_TRUE(one.ok());
      const Execution recovery = RunPlan(toy, *one, config);
      std::vector<faults::Plan> plans = {*one};
      for (const faults::Window& w :
           recovery.lives.size() > 1 ? recovery.lives[1].windows : std::vector<faults::Window>{}) {
        auto two = faults::ParsePlan(prefix + ";powerloss@" + w.point + "#" +
                                     std::to_string(w.occurrence));
        ASSERT_TRUE(two.ok());
        plans.push_back(*two);
      }
      for (const faults::Plan& plan : plans) {
        const Execution scratch = RunPlan(toy, plan, config);
        const Execution reused = RunPlan(toy, plan, config, &memo);
        ASSERT_FALSE(scratch.violations.empty());
        ASSERT_EQ(reused.trace, scratch.trace) << faults::PrintPlan(plan);
        EXPECT_EQ(reused.final_digest, scratch.final_digest);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 20);
  EXPECT_GT(memo.stats().lives_hits, 0);
  // The oracle names the history, so a death check reused under another history would differ.
  EXPECT_GT(memo.stats().death_check_hits, 0);
}

// Crash-state reuse at every life of a continuation: crashes anywhere in approval's `start` leave
// many different worlds, each recovered by a full `start` that mostly leaves one world; the
// `resume` from there is lived once and reused by the later plans, and every execution equals the
// one run from scratch (the checks still run with each plan's own history).
TEST(LifeRunnerTest, LivesAfterTheFirstOfAContinuationAreReusedWhereRecoveriesConverge) {
  auto scenario = scenarios::FindScenario("approval");
  ASSERT_NE(scenario, nullptr);
  ASSERT_FALSE(scenario->LifeReadsPrevious());
  RunConfig config;
  config.seed = 11;
  const Execution reference = RunPlan(*scenario, faults::Plan{}, config);
  RunMemo memo;
  int compared = 0;
  for (const faults::Window& w : reference.lives.front().windows) {
    auto plan = faults::ParsePlan("crash@" + w.point + "#" + std::to_string(w.occurrence));
    ASSERT_TRUE(plan.ok());
    ASSERT_NO_FATAL_FAILURE(ExpectReuseRunsAsFromScratch(*scenario, *plan, config, &memo));
    ++compared;
  }
  EXPECT_GT(compared, 30);
  const RunMemo::Stats stats = memo.stats();
  EXPECT_GT(stats.later_lives_hits, 10);
  EXPECT_LE(stats.later_lives_hits, stats.lives_hits);
}

}  // namespace
}  // namespace stepfault::properties
