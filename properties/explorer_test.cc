// Goal: under the strict profile every built-in scenario survives every single fault at every
// window (100% of cells exercised, zero violations), and exploration is deterministic across runs,
// job counts and shard splits. Method: explore each scenario at depth 1 (depth 2 sampled), compare
// reports through their JSON form.
#include "properties/explorer.h"

#include <gtest/gtest.h>

#include "reports/merge.h"
#include "reports/report_json.h"

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
