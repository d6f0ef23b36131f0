// Goal: an interrupted exploration reports what ran and nothing more. Tasks not answered when the
// interrupt arrives come back `interrupted` (never a harness violation, never a pass), the explorer
// records nothing of them and grows nothing from them, the variants not reached are listed as not
// explored, the report is marked with the signal, and a partial report passes no gate. Method:
// request the interrupt from the progress callback part-way through a level (inline and with
// forked workers, whose unanswered tasks must be killed, not blamed) and compare with the full run.
#include "properties/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "properties/explorer.h"
#include "properties/task_pool.h"
#include "properties/toy_scenario_test_util.h"
#include "reports/report_json.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

class InterruptTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearInterruptForTesting(); }
  void TearDown() override { ClearInterruptForTesting(); }
};

std::vector<faults::Plan> FirstLevelPlans(const scenarios::Scenario& s) {
  const Execution ex = RunPlan(s, faults::Plan{}, RunConfig{});
  std::vector<faults::Plan> plans;
  for (const faults::Window& w : ex.lives[0].windows) {
    auto fault = faults::FaultAtWindow({faults::FaultActionKind::kCrash}, w);
    if (fault.ok()) plans.push_back(faults::Plan{{*fault}});
  }
  return plans;
}

TEST_F(InterruptTest, InlineTasksAfterTheInterruptAreNotRunNorBlamed) {
  testing::ToyScenario toy;
  const std::vector<faults::Plan> plans = FirstLevelPlans(toy);
  ASSERT_GE(plans.size(), 4u);
  const std::vector<TaskResult> full = RunTasks(toy, RunConfig{}, plans, 1, nullptr);
  const std::vector<TaskResult> cut = RunTasks(toy, RunConfig{}, plans, 1, [](int64_t done) {
    if (done == 2) RequestInterrupt(SIGINT);
  });
  ASSERT_EQ(cut.size(), plans.size());
  for (size_t i = 0; i < cut.size(); ++i) {
    EXPECT_FALSE(full[i].interrupted);
    EXPECT_EQ(cut[i].interrupted, i >= 2) << "task " << i;
    if (cut[i].interrupted) continue;
    // What ran is exactly what the uninterrupted run found.
    EXPECT_EQ(cut[i].fingerprint, full[i].fingerprint) << "task " << i;
  }
}

// Workers forked before the interrupt is seen are killed, and the tasks they had not answered are
// interrupted: not INV-HARNESS (a worker that died), not a pass.
TEST_F(InterruptTest, ForkedWorkersAreKilledAndTheirUnansweredTasksAreNotBlamed) {
  testing::ToyScenario toy;
  const std::vector<faults::Plan> plans = FirstLevelPlans(toy);
  RequestInterrupt(SIGTERM);
  const std::vector<TaskResult> cut = RunTasks(toy, RunConfig{}, plans, 2, nullptr);
  ASSERT_EQ(cut.size(), plans.size());
  for (const TaskResult& r : cut) {
    EXPECT_TRUE(r.interrupted);
    EXPECT_TRUE(r.violations.empty());
  }
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a worker was left unreaped";
}

TEST_F(InterruptTest, AnInterruptedExplorationIsPartialNotRunCellsAndUnreachedVariantsSaySo) {
  ExploreOptions o;
  o.depth = 2;
  o.jobs = 1;
  o.all_variants = false;
  // The toy explored whole, for its cell count (approval, never reached below, is not needed).
  const reports::Report full = Explore({std::make_shared<testing::ToyScenario>()}, o, "test");
  ASSERT_TRUE(full.interrupted.empty());
  o.progress = [&](int level, int64_t done, int64_t) {
    if (level == 1 && done == 3) RequestInterrupt(SIGINT);
  };
  const reports::Report cut = Explore(
      {std::make_shared<testing::ToyScenario>(), scenarios::FindScenario("approval")}, o, "test");
  EXPECT_EQ(cut.interrupted, "SIGINT");
  EXPECT_EQ(reports::ComputeVerdict(cut), reports::Verdict::kInterrupted);
  EXPECT_EQ(reports::VerdictExitCode(reports::ComputeVerdict(cut)), 130);
  ASSERT_EQ(cut.scenarios.size(), 2u);
  // The toy: its fault-free run and the three first-level runs, nothing of level 2.
  EXPECT_EQ(cut.scenarios[0].runs, 1 + 3);
  EXPECT_LT(reports::ComputeCoverage(cut.scenarios[0]).cells_exercised,
            reports::ComputeCoverage(full.scenarios[0]).cells_exercised);
  EXPECT_EQ(cut.scenarios[0].crash_states.explored, 0) << "a level grew from a partial one";
  EXPECT_TRUE(cut.violations.empty());
  // approval was never reached: listed, not explored, counted nowhere.
  EXPECT_EQ(cut.scenarios[1].skipped, "not explored: the run was interrupted before it");
  EXPECT_EQ(cut.scenarios[1].runs, 0);
  // The mark survives report.json, and a coverage gate cannot pass it.
  reports::Report gated = cut;
  gated.min_coverage_pct = 1;
  auto read = reports::FromJson(reports::ToJson(gated));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->interrupted, "SIGINT");
  EXPECT_EQ(reports::ComputeVerdict(*read), reports::Verdict::kInterrupted);
}

}  // namespace
}  // namespace stepfault::properties
