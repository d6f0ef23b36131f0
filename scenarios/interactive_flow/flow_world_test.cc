// Goal: the interactive-flow model (ADR-0054) keeps every invariant under every explored
// interleaving of its five actors, with and without a crash of one actor or a power loss, and a
// run is a deterministic function of its schedule. Method: run the world under PCT and random
// walks over many seeds (and faults at each actor's steps), require no violation and a run that
// ends Completed or TimedOut (or Failed with a forced purge); replay printed schedules and compare
// the final world digests (the plan text has its own test: flow_plan_test.cc).
#include "scenarios/interactive_flow/flow_world.h"

#include <gtest/gtest.h>

#include <set>

#include "faults/schedule_strategies.h"

namespace stepfault::scenarios::flow {
namespace {

std::string Describe(const FlowRunResult& r) {
  std::string out = "schedule " + r.run.schedule + " status " + r.final_status;
  for (const Violation& v : r.violations) out += "\n  " + v.invariant + ": " + v.message;
  for (const std::string& d : r.run.deaths) out += "\n  death " + d;
  return out;
}

TEST(InteractiveFlowWorldTest, StrictModelKeepsEveryInvariantUnderPctAndRandomSchedules) {
  std::set<std::string> statuses;
  std::set<std::string> schedules;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    faults::PctStrategy pct(seed, 3, 200);
    faults::RandomWalkStrategy random(seed);
    for (faults::ScheduleStrategy* s : {static_cast<faults::ScheduleStrategy*>(&pct),
                                        static_cast<faults::ScheduleStrategy*>(&random)}) {
      FlowRunResult r = RunFlowWorld(s, FlowOptions{}, FlowFault{});
      EXPECT_TRUE(r.violations.empty()) << "seed " << seed << ": " << Describe(r);
      EXPECT_TRUE(r.run.deaths.empty()) << Describe(r);
      EXPECT_FALSE(r.run.cut_off);
      statuses.insert(r.final_status);
      schedules.insert(r.run.schedule);
    }
  }
  EXPECT_GE(schedules.size(), 60u);
  EXPECT_TRUE(statuses.count("Completed")) << "some schedule answers in time";
  EXPECT_TRUE(statuses.count("TimedOut")) << "some schedule lets the request expire";
}

TEST(InteractiveFlowWorldTest, StrictModelSurvivesACrashOfAnyActorOrAPowerLossAtAnyStep) {
  int fired = 0;
  for (int actor = 0; actor < 5; ++actor) {
    for (int step = 1; step <= 12; ++step) {
      for (auto kind : {FlowFault::Kind::kCrashActor, FlowFault::Kind::kPowerLoss}) {
        FlowFault fault{kind, actor, step};
        faults::PctStrategy pct(static_cast<uint64_t>(actor * 100 + step), 3, 200);
        FlowRunResult r = RunFlowWorld(&pct, FlowOptions{}, fault);
        EXPECT_TRUE(r.violations.empty()) << FlowFaultText(fault) << ": " << Describe(r);
        fired += r.fault_fired;
      }
    }
  }
  EXPECT_GE(fired, 50) << "most planned faults must fire (an actor has fewer steps than 12)";
}

TEST(InteractiveFlowWorldTest, ForcedPurgeTerminatesTheRunWithAnAuditEvent) {
  FlowOptions options;
  options.force_purge = true;
  int failed = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    faults::PctStrategy pct(seed, 3, 200);
    FlowRunResult r = RunFlowWorld(&pct, options, FlowFault{});
    EXPECT_TRUE(r.violations.empty()) << Describe(r);
    failed += r.final_status == "Failed";
  }
  EXPECT_GT(failed, 0) << "some schedule purges the bound revision while the run is live";
}

TEST(InteractiveFlowWorldTest, APrintedScheduleAndFaultReplayTheSameWorld) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    faults::RandomWalkStrategy random(seed);
    const FlowFault fault{FlowFault::Kind::kCrashActor, static_cast<int>(seed % 5), 3};
    FlowRunResult first = RunFlowWorld(&random, FlowOptions{}, fault);
    auto parsed = ParseFlowFault(FlowFaultText(fault));
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    std::string error;
    faults::ReplayStrategy replay(*faults::DecodeSchedule(first.run.schedule, &error));
    FlowRunResult again = RunFlowWorld(&replay, FlowOptions{}, *parsed);
    EXPECT_EQ(again.run.schedule, first.run.schedule);
    EXPECT_EQ(again.digest, first.digest);
    EXPECT_EQ(replay.divergences(), 0u);
  }
}

}  // namespace
}  // namespace stepfault::scenarios::flow
