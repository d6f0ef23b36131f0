// Goal: under the strict profile every built-in scenario survives every single fault at every
// window (100% of cells exercised, zero violations), and exploration is deterministic across runs,
// job counts and shard splits. Method: explore each scenario at depth 1 (depth 2 sampled), compare
// reports through their JSON form.
#include "properties/explorer.h"

#include <gtest/gtest.h>

#include "reports/merge.h"
#include "reports/report_json.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

std::string Describe(const reports::Report& r) {
  std::string s;
  for (const auto& v : r.violations) {
    s += v.scenario + " " + v.invariant + " " + v.plan + ": " + v.message + "\n";
    if (s.size() > 4000) break;
  }
  return s;
}

TEST(ExplorerTest, StrictProfileEveryScenarioEveryWindowEveryActionZeroViolations) {
  ExploreOptions o;
  o.jobs = 2;
  reports::Report r = Explore(scenarios::BuiltinScenarios(), o, "test");
  auto coverage = reports::ComputeCoverage(r);
  EXPECT_EQ(coverage.cells_exercised, coverage.cells_total);
  EXPECT_GT(coverage.cells_total, 100);
  EXPECT_TRUE(r.violations.empty()) << Describe(r);
}

TEST(ExplorerTest, ReportsAreIdenticalAcrossJobsAndShards) {
  ExploreOptions o;
  o.action_kinds = {"crash", "powerloss"};
  auto fan_in = scenarios::FindScenario("fan-in");
  reports::Report one = Explore({fan_in}, o, "test");
  o.jobs = 2;
  reports::Report two = Explore({fan_in}, o, "test");
  EXPECT_EQ(reports::ToJson(one), reports::ToJson(two));
  std::vector<reports::Report> shards;
  o.shard_count = 3;
  for (int i = 1; i <= 3; ++i) {
    o.shard_index = i;
    shards.push_back(Explore({fan_in}, o, "test"));
  }
  auto merged = reports::MergeShards(shards);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(reports::ToJson(*merged), reports::ToJson(one));
}

}  // namespace
}  // namespace stepfault::properties

namespace stepfault::properties {
namespace {

TEST(ExplorerTest, StrictProfileDepthTwoSampledPairsZeroViolations) {
  ExploreOptions o;
  o.depth = 2;
  o.jobs = 2;
  o.action_kinds = {"crash", "powerloss"};
  o.depth2_max_pairs = std::getenv("STEPFAULT_LONG") != nullptr ? 2000 : 40;
  reports::Report r = Explore(scenarios::BuiltinScenarios(), o, "test");
  for (const auto& s : r.scenarios) {
    ASSERT_TRUE(s.depth2.has_value()) << s.name;
    EXPECT_GT(s.depth2->pairs_run, 0) << s.name;
    EXPECT_LE(s.depth2->pairs_run, s.depth2->pairs_total) << s.name;
  }
  EXPECT_TRUE(r.violations.empty()) << Describe(r);
}

TEST(ExplorerTest, MafCompatViolationsAreFoundAndEachMinimalReplayReproducesIt) {
  ExploreOptions o;
  o.config.profile = EngineProfile::MafCompat();
  o.action_kinds = {"topology"};
  o.jobs = 2;
  reports::Report r = Explore(scenarios::BuiltinScenarios(), o, "test");
  ASSERT_FALSE(r.violations.empty());
  for (const auto& v : r.violations) {
    auto scenario = scenarios::FindScenario(v.scenario);
    auto plan = faults::ParsePlan(v.plan);
    ASSERT_TRUE(plan.ok()) << v.plan;
    size_t faults_in_plan = 0;
    for (const auto& f : plan->faults) faults_in_plan += f.is_none() ? 0 : 1;
    EXPECT_LE(faults_in_plan, 2u) << v.plan;
    EXPECT_NE(v.replay.find("--plan '" + v.plan + "'"), std::string::npos) << v.replay;
    Execution again = RunPlan(*scenario, *plan, o.config);
    bool reproduced = false;
    for (const auto& x : again.violations) reproduced = reproduced || x.invariant == v.invariant;
    EXPECT_TRUE(reproduced) << v.replay;
  }
}

}  // namespace
}  // namespace stepfault::properties
