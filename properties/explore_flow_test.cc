// Goal: `explore` covers the scenario with several actors the way the brief of issue 14 asks: it
// is in the registry as a schedule scenario, its exploration (PCT with seeded faults) is a pure
// function of the root seed, the strict model holds every invariant over every schedule, a flow
// hazard switched on in the configuration is found by its expected invariant with a replay
// command carrying --plan and --schedule, shard 1 explores it whole, and the flow mutants are in
// the mutant table, each hunted by schedules. Method: ExploreScheduleScenario and Explore on small
// budgets, replays of the printed counterexample, the mutant table; with --jobs 2 the scenario
// runs beside the variants and gives the same report, an interrupt lists it as not explored.
#include "properties/explore_flow.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "faults/schedule_strategies.h"
#include "properties/interrupt.h"
#include "properties/mutants.h"
#include "properties/toy_scenario_test_util.h"
#include "reports/merge.h"
#include "reports/report_json.h"
#include "scenarios/interactive_flow/flow_hazards.h"
#include "scenarios/interactive_flow/flow_schedules.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

std::shared_ptr<const scenarios::ScheduleScenario> Flow() {
  auto s = scenarios::FindScheduleScenario("interactive-flow");
  SF_CHECK(s != nullptr);
  return s;
}

ExploreOptions Small(int schedules) {
  ExploreOptions o;
  o.flow_schedules = schedules;
  return o;
}

TEST(ExploreFlowTest, TheRegistryListsInteractiveFlowAsAScheduleScenarioOnly) {
  auto flow = Flow();
  EXPECT_EQ(flow->AsScheduleScenario(), flow.get());
  EXPECT_EQ(flow->AsLifeScenario(), nullptr);
  EXPECT_EQ(scenarios::FindScenario("interactive-flow"), nullptr)
      << "the life runner must never be handed a scenario with several actors";
  for (const auto& s : scenarios::BuiltinScenarios()) EXPECT_EQ(s->AsScheduleScenario(), nullptr);
  const auto& all = scenarios::AllScenarios();
  EXPECT_EQ(all.size(), scenarios::BuiltinScenarios().size() + 1);
  EXPECT_EQ(all.back(), flow);
  EXPECT_EQ(flow->invariants().size(), 11u);  // the nine INV-FLOW-* plus INV-ALO and INV-IDEM
}

TEST(ExploreFlowTest, TheStrictModelHoldsEveryInvariantOverEverySchedule) {
  ScenarioExploration e = ExploreScheduleScenario(*Flow(), Small(30));
  for (const auto& v : e.violations)
    ADD_FAILURE() << v.invariant << ": " << v.message << "\n  " << v.replay;
  const reports::ScenarioReport& r = e.report;
  ASSERT_TRUE(r.schedules.has_value());
  EXPECT_EQ(r.schedules->explored, 30);
  EXPECT_EQ(r.schedules->budget, 30);
  EXPECT_EQ(r.schedules->states_counted_schedules, 30);  // a budget below 40 is counted whole
  EXPECT_GT(r.schedules->distinct_states, 30);
  // A quarter of the budget is the bounded exhaustive phase, which the report describes.
  ASSERT_TRUE(r.schedules->bounded.has_value());
  EXPECT_EQ(r.schedules->bounded->max_preemptions, kFlowBoundedPreemptions);
  EXPECT_EQ(r.schedules->bounded->schedules, 7);
  EXPECT_FALSE(r.schedules->bounded->complete);
  EXPECT_GT(r.schedules->bounded->distinct_states, 7);
  ASSERT_FALSE(r.schedules->bounded->runs_per_preemption_bound.empty());
  // The first schedules differ only in free switches (away from a blocked actor).
  EXPECT_EQ(r.schedules->bounded->runs_per_preemption_bound[0], 7);
  EXPECT_GT(r.schedules->context_switches, 0);
  EXPECT_GT(r.schedules->faults_fired, 0);
  EXPECT_EQ(r.schedules->windows, static_cast<int64_t>(r.schedules->window_names.size()));
  EXPECT_GT(r.schedules->windows, 20);
  EXPECT_TRUE(r.cells.empty() && r.windows.empty()) << "no cells: nothing to count in cells_pct";
  ASSERT_EQ(r.invariant_results.size(), 12u);  // the scenario's eleven and INV-DETERMINISM
  for (const auto& inv : r.invariant_results) {
    EXPECT_EQ(inv.violations, 0) << inv.id;
    EXPECT_EQ(inv.checks, inv.id == scenarios::kInvDeterminism ? 1 : 30) << inv.id;
    EXPECT_FALSE(inv.statement.empty()) << inv.id;
  }
  EXPECT_FALSE(r.points_reached.empty());
}

TEST(ExploreFlowTest, TheReportIsAFunctionOfTheRootSeed) {
  ExploreOptions o = Small(12);
  o.config.seed = 5;
  const reports::Report a = Explore({Flow()}, o, "test");
  const reports::Report b = Explore({Flow()}, o, "test");
  EXPECT_EQ(a, b);
  o.config.seed = 6;
  const reports::Report c = Explore({Flow()}, o, "test");
  EXPECT_NE(a.scenarios[0].schedules, c.scenarios[0].schedules) << "the seed picks the schedules";
}

TEST(ExploreFlowTest, AFlowHazardIsFoundByItsInvariantWithAReplayablePlanAndSchedule) {
  ExploreOptions o = Small(20);
  o.config.hazards.insert(scenarios::flow::kHazardDuplicateResponseResumesTwice);
  ScenarioExploration e = ExploreScheduleScenario(*Flow(), o);
  const reports::Violation* kill = nullptr;
  for (const auto& v : e.violations) {
    if (v.invariant == scenarios::kInvFlowNoDoubleResume) kill = &v;
  }
  ASSERT_NE(kill, nullptr);
  EXPECT_EQ(kill->scenario, "interactive-flow");
  EXPECT_NE(kill->replay.find("stepfault replay --scenario interactive-flow --plan " + kill->plan +
                              " --schedule '"),
            std::string::npos)
      << kill->replay;
  EXPECT_NE(kill->replay.find("--hazard host:flow-duplicate-response-resumes-twice"),
            std::string::npos);
  for (const auto& inv : e.report.invariant_results) {
    if (inv.id == scenarios::kInvFlowNoDoubleResume) {
      EXPECT_GT(inv.violations, 0);
    }
  }
  // The printed schedule replays the kill.
  const size_t open = kill->replay.find("--schedule '") + 12;
  const std::string schedule = kill->replay.substr(open, kill->replay.find('\'', open) - open);
  std::string error;
  auto choices = faults::DecodeSchedule(schedule, &error);
  ASSERT_TRUE(choices.has_value()) << error;
  auto fault = scenarios::flow::ParseFlowFault(kill->plan);
  ASSERT_TRUE(fault.ok()) << fault.status().message();
  scenarios::flow::FlowOptions flow;
  ASSERT_TRUE(scenarios::flow::FlowOptionsForMutant(
      scenarios::flow::kHazardDuplicateResponseResumesTwice, &flow));
  scenarios::flow::ScheduleReplay replay =
      scenarios::flow::ReplayFlowSchedule(flow, *choices, *fault);
  EXPECT_EQ(replay.divergences, 0u);
  bool again = false;
  for (const auto& v : replay.result.violations) again |= v.invariant == kill->invariant;
  EXPECT_TRUE(again);
}

// With --jobs 2 the schedule scenario is explored in a worker beside the variants' pools
// (explore_variants.cc) and its answer travels as report JSON: the report is the one --jobs 1
// gives, counterexamples and replay commands included.
TEST(ExploreFlowTest, WithSeveralJobsItIsExploredBesideTheVariantsAndTheReportIsTheSame) {
  ExploreOptions o = Small(20);
  o.depth = 1;
  o.all_variants = false;
  o.config.hazards.insert(scenarios::flow::kHazardDuplicateResponseResumesTwice);
  const std::vector<std::shared_ptr<const scenarios::ScenarioInfo>> both = {
      std::make_shared<testing::ToyScenario>(), Flow()};
  const reports::Report inline_report = Explore(both, o, "test");
  ASSERT_FALSE(inline_report.violations.empty()) << "the hazard gives counterexamples";
  o.jobs = 2;
  const reports::Report beside = Explore(both, o, "test");
  EXPECT_EQ(reports::ToJson(beside), reports::ToJson(inline_report));
  EXPECT_EQ(beside, inline_report);
}

TEST(ExploreFlowTest, AnInterruptWhileItRunsBesideListsItAsNotExplored) {
  ClearInterruptForTesting();
  ExploreOptions o = Small(400);  // still running when the toy's first level is cut
  o.depth = 1;
  o.jobs = 2;
  o.all_variants = false;
  o.progress = [](int, int64_t done, int64_t) {
    if (done == 2) RequestInterrupt(SIGINT);
  };
  const reports::Report cut =
      Explore({std::make_shared<testing::ToyScenario>(), Flow()}, o, "test");
  ClearInterruptForTesting();
  EXPECT_EQ(cut.interrupted, "SIGINT");
  ASSERT_EQ(cut.scenarios.size(), 2u);
  EXPECT_EQ(cut.scenarios[1].skipped, "not explored: the run was interrupted before it");
  EXPECT_EQ(cut.scenarios[1].runs, 0);
  EXPECT_TRUE(cut.violations.empty());
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a worker was left unreaped";
}

// The stand-in for an exploration whose worker died: a harness failure with a command that runs
// the same search in the foreground, nothing counted as run.
TEST(ExploreFlowTest, AWorkerThatDiesExploringItIsAnInvHarnessViolationWithItsCommand) {
  ExploreOptions o = Small(20);
  o.config.seed = 7;
  const ScenarioExploration e = ScheduleExplorationDied(*Flow(), o, "died of signal 6 (Aborted)");
  EXPECT_EQ(e.report.name, "interactive-flow");
  EXPECT_EQ(e.report.runs, 0);
  ASSERT_EQ(e.violations.size(), 1u);
  const reports::Violation& v = e.violations[0];
  EXPECT_EQ(v.invariant, scenarios::kInvHarness);
  EXPECT_EQ(v.seed, 7u);
  EXPECT_NE(v.message.find("died of signal 6 (Aborted)"), std::string::npos) << v.message;
  EXPECT_NE(v.replay.find("stepfault schedules explore --seed 7 --schedules 20"), std::string::npos)
      << v.replay;
  reports::Report r;
  AppendScheduleExploration(e, &r);
  EXPECT_EQ(reports::ComputeVerdict(r), reports::Verdict::kViolation);
}

TEST(ExploreFlowTest, ShardOneExploresItWholeAndTheMergeIsTheUnshardedReport) {
  ExploreOptions o = Small(8);
  const reports::Report whole = Explore({Flow()}, o, "test");
  std::vector<reports::Report> shards;
  for (int i = 1; i <= 2; ++i) {
    ExploreOptions s = o;
    s.shard_index = i;
    s.shard_count = 2;
    shards.push_back(Explore({Flow()}, s, "test"));
  }
  EXPECT_EQ(shards[1].scenarios[0].schedules->explored, 0);
  EXPECT_EQ(shards[1].runs, 0);
  Result<reports::Report> merged = reports::MergeShards(shards);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(*merged, whole);
}

TEST(ExploreFlowTest, EveryFlowHazardIsAMutantHuntedBySchedulesWithItsExpectedInvariant) {
  std::vector<std::string> names;
  for (const auto& h : scenarios::flow::FlowHazards()) {
    const std::string name = std::string("host:") + h.name;
    const Mutant* m = nullptr;
    for (const Mutant& x : AllMutants()) m = x.name == name ? &x : m;
    ASSERT_NE(m, nullptr) << name;
    EXPECT_TRUE(m->by_schedules);
    EXPECT_EQ(m->expected, std::vector<std::string>{h.expected_invariant});
    names.push_back(name);
  }
  ExploreOptions o;
  for (const reports::MutantResult& r : RunMutants(o, names, nullptr)) {
    EXPECT_EQ(r.verdict, "killed-as-expected") << r.name << " " << r.invariant;
    EXPECT_EQ(r.scenario, "interactive-flow");
    EXPECT_NE(r.replay.find("--plan " + r.plan + " --schedule '"), std::string::npos) << r.replay;
  }
}

}  // namespace
}  // namespace stepfault::properties
