// Goal: exploration's verdict means what it says. Under the strict profile every built-in scenario
// survives every single fault at every window; coverage counts windows the explorer did not choose
// (recovery windows, filtered actions) so it can fall below 100%; depth 2 crashes and powers off
// every window of the recovery of every distinct crash state and reuses equal states; crashes of
// the code under test and nondeterminism become counterexamples; reports are identical across job
// counts and shard splits; reusing the lives plans share (ExploreOptions::reuse) changes nothing in
// the report. Method: explore the built-in scenarios at depth 1 and a small toy scenario
// (properties/toy_scenario_test_util.h) at depths 1-3, and compare reports through their JSON form
// (with and without reuse: the toy at depths 2 and 3, the toy whose oracle reports every life's
// history, and with STEPFAULT_LONG=1 approval at depth 2 over both checkpoint stores and with a
// host hazard whose violations must match exactly).
#include "properties/explorer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "properties/toy_scenario_test_util.h"
#include "reports/merge.h"
#include "reports/report_json.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties {
namespace {

using testing::ToyScenario;

std::string Describe(const reports::Report& r) {
  std::string s;
  for (const auto& v : r.violations) {
    s += v.scenario + " " + v.invariant + " " + v.plan + ": " + v.message + "\n";
    if (s.size() > 4000) break;
  }
  return s;
}

std::shared_ptr<const scenarios::Scenario> Toy(
    ToyScenario::Mode mode = ToyScenario::Mode::kNormal) {
  return std::make_shared<ToyScenario>(mode);
}

TEST(ExplorerTest, StrictProfileEveryScenarioEveryFaultFreeWindowEveryActionZeroViolations) {
  ExploreOptions o;
  o.depth = 1;
  o.jobs = 2;
  o.all_variants = false;
  reports::Report r = Explore(scenarios::BuiltinScenarios(), o, "test");
  auto coverage = reports::ComputeCoverage(r);
  EXPECT_GT(coverage.cells_total, 100);
  EXPECT_EQ(coverage.cells_filtered, 0);
  EXPECT_TRUE(r.violations.empty()) << Describe(r);
}

// The full default exploration (exhaustive depth 2, crash and power loss, every variant) of the
// strict profile. Minutes of CPU, so only with STEPFAULT_LONG=1.
TEST(ExplorerTest, StrictProfileExhaustiveDepthTwoZeroViolations) {
  STEPFAULT_SKIP_UNLESS_LONG();
  ExploreOptions o;
  o.jobs = 2;
  o.action_kinds = {"crash", "powerloss"};
  reports::Report r = Explore(scenarios::BuiltinScenarios(), o, "test");
  for (const auto& s : r.scenarios) {
    if (s.skipped.empty()) {
      EXPECT_GT(s.crash_states.explored, 0) << s.name;
    }
  }
  EXPECT_TRUE(r.violations.empty()) << Describe(r);
}

TEST(ExplorerTest, DepthOneLeavesRecoveryWindowsNotRunSoCoverageCanFail) {
  ExploreOptions o;
  o.depth = 1;
  reports::Report r = Explore({Toy()}, o, "test");
  auto c = reports::ComputeCoverage(r);
  EXPECT_GT(c.recovery_windows, 0);
  EXPECT_GT(c.cells_not_run, 0);
  EXPECT_LT(c.cells_pct, 100.0);
  r.min_coverage_pct = 100;
  EXPECT_EQ(reports::ComputeVerdict(r), reports::Verdict::kCoverageBelowMinimum);
}

TEST(ExplorerTest, FilteredActionsAreCountedAsFilteredNotAsNotApplicable) {
  ExploreOptions o;
  o.action_kinds = {"crash"};
  reports::Report r = Explore({Toy()}, o, "test");
  auto c = reports::ComputeCoverage(r);
  EXPECT_GT(c.cells_filtered, 0);
  EXPECT_LT(c.cells_pct, 100.0);
  EXPECT_EQ(r.actions_filtered.size(), ActionKindNames().size() - 1);
  for (const auto& cell : r.scenarios[0].cells) {
    if (cell.action == "powerloss") {
      EXPECT_EQ(cell.outcome, reports::CellOutcome::kFiltered);
    }
  }
}

// The report names every switch that is on, the host's and the store's too (a report of an
// exploration under --hazard host:X said "hazards: none", issue 30).
TEST(ExplorerTest, TheReportNamesEveryHazardSwitchedOnHostAndStoreIncluded) {
  ExploreOptions o;
  o.action_kinds = {"crash"};
  o.config.hazards.insert("some-mistake");
  o.config.store.prune_on_read = true;
  o.config.profile.step_numbers_restart = true;
  reports::Report r = Explore({Toy()}, o, "test");
  EXPECT_EQ(r.hazards, std::vector<std::string>(
                           {"step-numbers-restart", "host:some-mistake", "store:prune-on-read"}));
  ExploreOptions none;
  none.action_kinds = {"crash"};
  EXPECT_TRUE(Explore({Toy()}, none, "test").hazards.empty());
}

// ExploreOptions::stores (`explore --store`) keeps only the named stores' variants, in the stores'
// order; the toy host opens no checkpoint store, so every store variant after the first is skipped
// as indistinct, with the reason that fits: two SQLite journal modes "write the same files", any
// store against the file store's variant "the host ignores".
TEST(ExplorerTest, StoresChooseTheStoreVariantsAndIndistinctStoresAreSkippedWithTheirReason) {
  ExploreOptions o;
  o.depth = 1;
  o.determinism_every = 0;
  o.action_kinds = {"crash"};
  o.stores = {"sqlite-truncate", "sqlite-persist"};
  const reports::Report two = Explore({Toy()}, o, "test");
  ASSERT_EQ(two.scenarios.size(), 2u);
  const auto by_variant = [](const reports::Report& r, const std::string& variant) {
    for (const reports::ScenarioReport& s : r.scenarios) {
      if (s.variant == variant) return s;
    }
    ADD_FAILURE() << "no variant " << variant;
    return reports::ScenarioReport{};
  };
  EXPECT_EQ(by_variant(two, "store=sqlite-persist").skipped, "");
  EXPECT_NE(by_variant(two, "store=sqlite-truncate").skipped.find("the two stores write the same"),
            std::string::npos);
  o.stores.clear();
  const reports::Report every = Explore({Toy()}, o, "test");
  ASSERT_EQ(every.scenarios.size(), CheckpointStoreNames().size());
  EXPECT_EQ(by_variant(every, "").skipped, "");
  for (const char* store : {"sqlite", "sqlite-persist", "sqlite-truncate", "sqlite-delete"}) {
    EXPECT_NE(by_variant(every, std::string("store=") + store).skipped.find("the host ignores"),
              std::string::npos)
        << store;
  }
}

TEST(ExplorerTest, DepthTwoCrashesEveryRecoveryWindowAndDeduplicatesCrashStates) {
  ExploreOptions o;
  o.action_kinds = {"crash", "powerloss"};
  reports::Report r = Explore({Toy()}, o, "test");
  const reports::ScenarioReport& s = r.scenarios[0];
  EXPECT_TRUE(r.violations.empty()) << Describe(r);
  // Power losses before the first directory sync all leave the same empty world.
  EXPECT_GT(s.crash_states.total, s.crash_states.distinct);
  EXPECT_EQ(s.crash_states.explored, s.crash_states.distinct);
  // Every recovery window found below the depth limit was crashed and powered off.
  std::set<std::string> ran;
  for (const auto& cell : s.cells) {
    if (reports::CellRan(cell.outcome)) ran.insert(cell.window + " " + cell.action);
  }
  int recovery_ran = 0;
  for (const auto& w : s.windows) recovery_ran += w.recovery && ran.count(w.id + " crash") ? 1 : 0;
  EXPECT_GT(recovery_ran, 0);
  EXPECT_GT(s.crash_states.beyond_depth, 0);
}

TEST(ExplorerTest, DepthThreeExploresTheCrashStatesOfDepthTwo) {
  ExploreOptions o;
  o.action_kinds = {"crash", "powerloss"};
  const reports::Report two = Explore({Toy()}, o, "test");
  o.depth = 3;
  reports::Report three = Explore({Toy()}, o, "test");
  EXPECT_GT(three.scenarios[0].crash_states.explored, two.scenarios[0].crash_states.explored);
  EXPECT_GT(three.runs, two.runs);
}

TEST(ExplorerTest, ReportsAreIdenticalAcrossJobsAndShards) {
  ExploreOptions o;
  o.action_kinds = {"crash", "powerloss", "ioerror"};
  reports::Report one = Explore({Toy()}, o, "test");
  o.jobs = 2;
  const reports::Report two = Explore({Toy()}, o, "test");
  EXPECT_EQ(reports::ToJson(one), reports::ToJson(two));
  std::vector<reports::Report> shards;
  o.shard_count = 3;
  for (int i = 1; i <= 3; ++i) {
    o.shard_index = i;
    shards.push_back(Explore({Toy()}, o, "test"));
  }
  auto merged = reports::MergeShards(shards);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(reports::ToJson(*merged), reports::ToJson(one));
}

TEST(ExplorerTest, ReusingSharedLivesGivesTheSameReportAsRunningEveryPlanFromScratch) {
  for (int depth : {2, 3}) {
    for (int jobs : {1, 2}) {
      ExploreOptions o;
      o.depth = depth;
      o.jobs = jobs;
      o.reuse = false;
      reports::Report scratch = Explore({Toy()}, o, "test");
      o.reuse = true;
      reports::Report reused = Explore({Toy()}, o, "test");
      EXPECT_GT(scratch.scenarios[0].crash_states.explored, 0);
      EXPECT_EQ(reports::ToJson(reused), reports::ToJson(scratch)) << depth << " " << jobs;
    }
  }
}

// Crash-state reuse is exact where it could go wrong: plans whose earlier lives reported
// different things (a crash or a power loss, at different windows) reach byte-identical crash
// states, the lives after them are reused, and the toy's oracle reports the whole history it was
// given after every life, so a check run with another plan's history would change a violation.
TEST(ExplorerTest, CrashStateReuseAcrossDifferentHistoriesGivesTheSameReportAsFromScratch) {
  const auto toy = Toy(ToyScenario::Mode::kHistoryChecked);
  for (int depth : {2, 3}) {
    ExploreOptions o;
    o.depth = depth;
    o.reuse = false;
    reports::Report scratch = Explore({toy}, o, "test");
    o.reuse = true;
    reports::Report reused = Explore({toy}, o, "test");
    const auto& states = scratch.scenarios[0].crash_states;
    EXPECT_GT(states.total, states.distinct);  // equal crash states from different histories
    EXPECT_FALSE(scratch.violations.empty());
    EXPECT_EQ(reports::ToJson(reused), reports::ToJson(scratch)) << depth;
  }
}

// The same on a real scenario, over both checkpoint stores and with a host hazard, so violations
// exist and must be the same ones with the same replay commands. Minutes of CPU: STEPFAULT_LONG=1.
TEST(ExplorerTest, ReuseOnApprovalAtDepthTwoOverBothStoresAndAHazardChangesNothing) {
  STEPFAULT_SKIP_UNLESS_LONG();
  auto approval = scenarios::FindScenario("approval");
  ASSERT_NE(approval, nullptr);
  struct Case {
    std::string store;
    std::string hazard;
  };
  for (const Case& c :
       {Case{"file", ""}, Case{"sqlite", ""}, Case{"file", "receipt-no-dir-sync"}}) {
    ExploreOptions o;
    o.jobs = 2;
    o.action_kinds = {"powerloss"};
    o.config.checkpoint_store = c.store;
    if (!c.hazard.empty()) o.config.hazards.insert(c.hazard);
    o.reuse = false;
    ScenarioExploration scratch = ExploreScenario(*approval, o);
    o.reuse = true;
    ScenarioExploration reused = ExploreScenario(*approval, o);
    reports::Report a, b;
    a.scenarios.push_back(scratch.report);
    a.violations = scratch.violations;
    b.scenarios.push_back(reused.report);
    b.violations = reused.violations;
    EXPECT_GT(scratch.report.crash_states.explored, 10) << c.store;
    EXPECT_EQ(c.hazard.empty(), scratch.violations.empty()) << c.store << " " << c.hazard;
    EXPECT_EQ(reports::ToJson(b), reports::ToJson(a)) << c.store << " " << c.hazard;
  }
}

// A host that throws in a recovery life: each crash plan is an INV-HARNESS counterexample with a
// replay command, and the exploration goes on to the end.
TEST(ExplorerTest, AnExceptionInALifeIsAHarnessViolationAndExplorationGoesOn) {
  ExploreOptions o;
  o.depth = 1;
  o.action_kinds = {"crash"};
  reports::Report r = Explore({Toy(ToyScenario::Mode::kThrowInRecovery)}, o, "test");
  ASSERT_FALSE(r.violations.empty());
  for (const auto& v : r.violations) {
    EXPECT_EQ(v.invariant, scenarios::kInvHarness);
    EXPECT_NE(v.message.find("toy host bug"), std::string::npos) << v.message;
    EXPECT_NE(v.replay.find("--plan '" + v.plan + "'"), std::string::npos);
  }
  EXPECT_GT(r.runs, static_cast<int64_t>(r.violations.size()));
}

TEST(ExplorerTest, AnAbortInAForkedWorkerIsAHarnessViolationAndExplorationGoesOn) {
  ExploreOptions o;
  o.depth = 1;
  o.jobs = 2;
  o.determinism_every = 0;
  o.action_kinds = {"crash"};
  reports::Report r = Explore({Toy(ToyScenario::Mode::kAbortInRecovery)}, o, "test");
  ASSERT_FALSE(r.violations.empty());
  int64_t crash_cells = 0;
  for (const auto& cell : r.scenarios[0].cells) {
    if (cell.action == "crash" && reports::CellRan(cell.outcome)) crash_cells += cell.runs;
  }
  EXPECT_EQ(static_cast<int64_t>(r.violations.size()), crash_cells);  // every crash plan aborts
  for (const auto& v : r.violations) {
    EXPECT_EQ(v.invariant, scenarios::kInvHarness);
    EXPECT_NE(v.message.find("signal 6"), std::string::npos) << v.message;
  }
}

TEST(ExplorerTest, ANondeterministicHostIsAnInvDeterminismViolation) {
  ExploreOptions o;
  o.depth = 1;
  o.determinism_every = 1;
  o.action_kinds = {"crash"};
  reports::Report r = Explore({Toy(ToyScenario::Mode::kNondeterministic)}, o, "test");
  std::set<std::string> invariants;
  for (const auto& v : r.violations) invariants.insert(v.invariant);
  EXPECT_EQ(invariants, std::set<std::string>{scenarios::kInvDeterminism}) << Describe(r);
  EXPECT_GT(r.scenarios[0].determinism_checks, 1);
  // The same toy without the counter is clean under the same sample.
  reports::Report clean = Explore({Toy()}, o, "test");
  EXPECT_TRUE(clean.violations.empty()) << Describe(clean);
}

TEST(ExplorerTest, MafCompatViolationsAreFoundAndEachMinimalReplayReproducesIt) {
  ExploreOptions o;
  o.config.profile = EngineProfile::MafCompat();
  o.action_kinds = {"topology"};
  o.depth = 1;
  o.all_variants = false;
  o.jobs = 2;
  reports::Report r = Explore(scenarios::BuiltinScenarios(), o, "test");
  ASSERT_FALSE(r.violations.empty());
  for (const auto& v : r.violations) {
    auto scenario = scenarios::FindScenario(v.scenario);
    ASSERT_NE(scenario, nullptr) << v.scenario;
    auto plan = faults::ParsePlan(v.plan);
    ASSERT_TRUE(plan.ok()) << v.plan;
    EXPECT_NE(v.replay.find("--plan '" + v.plan + "'"), std::string::npos) << v.replay;
    Execution again = RunPlan(*scenario, *plan, o.config);
    bool reproduced = false;
    for (const auto& x : again.violations) reproduced = reproduced || x.invariant == v.invariant;
    EXPECT_TRUE(reproduced) << v.replay;
  }
}

}  // namespace
}  // namespace stepfault::properties
