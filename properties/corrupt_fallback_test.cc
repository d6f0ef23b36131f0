// Goal: the documented fallback to an intact ancestor is REQUIRED, not merely allowed: when the
// newest checkpoint is damaged, fan-in recovery must resume the newest intact one and complete, and
// a host that gives up while an intact checkpoint exists violates INV-CORRUPT.
// Method: real runs through RunPlan. A crash at the rename of the 4th checkpoint damages the 3rd
// (the newest published); the next life must resume the 2nd and complete with no violation. If the
// fallback were removed (the store listing the damaged file and the host not falling back past
// it), the host would give up and CheckGiveUp would report INV-CORRUPT, failing the first test; the
// second test shows a `corrupt` that changed no byte is not counted as damage.
#include <gtest/gtest.h>

#include "faults/plan.h"
#include "properties/life_runner.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

Execution RunFanIn(const std::string& plan_text, const std::string& store) {
  auto scenario = scenarios::FindScenario("fan-in");
  SF_CHECK(scenario != nullptr);
  auto plan = faults::ParsePlan(plan_text);
  SF_CHECK(plan.ok());
  RunConfig config;
  config.checkpoint_store = store;
  return RunPlan(*scenario, *plan, config);
}

TEST(CorruptFallbackTest, DamagedNewestCheckpointFallsBackToTheNewestIntactAndCompletes) {
  Execution ex = RunFanIn("corrupt:bitflip@fs.rename[checkpoint]#4", "file");
  ASSERT_EQ(ex.lives.size(), 2u) << ex.trace;
  EXPECT_NE(ex.lives[0].report.trace.back().find("corrupt: damaged"), std::string::npos)
      << ex.trace;
  const Json& written = ex.lives[0].report.facts["checkpoints_written"];
  ASSERT_EQ(written.size(), 3u) << ex.trace;
  // The third is damaged: the resume must start from the second, the newest intact one.
  EXPECT_EQ(ex.lives[1].report.facts["resumed_from"], Json::array({written[1]})) << ex.trace;
  EXPECT_TRUE(ex.completed) << ex.trace;
  EXPECT_TRUE(ex.violations.empty()) << ex.trace;
}

TEST(CorruptFallbackTest, DamageThatChangesNoByteDoesNotExcuseAGiveUp) {
  // A corrupt action with no published file of the role damages nothing: the run must complete as
  // if it were a crash, and the harness must not count it as damage (no excuse for a give-up).
  Execution ex = RunFanIn("none;corrupt:bitflip@checkpoint.commit.after#2", "file");
  EXPECT_NE(ex.lives[1].report.trace.back().find("no published"), std::string::npos) << ex.trace;
  EXPECT_TRUE(ex.completed) << ex.trace;
  EXPECT_TRUE(ex.violations.empty()) << ex.trace;
}

}  // namespace
}  // namespace stepfault::properties
