// Goal: the life runner runs a scenario's fault-free reference to completion with no violation,
// deterministically, and a death at a window really kills a life and is recovered from.
// Method: run the built-in scenarios fault-free twice and compare traces; inject a crash at a
// recorded window and check the next life recovers.
#include "properties/life_runner.h"

#include <gtest/gtest.h>

#include "scenarios/registry.h"
#include "scenarios/scenario.h"

namespace stepfault::properties {
namespace {

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

}  // namespace
}  // namespace stepfault::properties
