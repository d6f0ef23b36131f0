// The explorer side of the scenarios with several actors in one world (scenarios/registry.h
// ScheduleScenarios(), each a scenarios::ScheduleScenario): `explore` hands them here instead of
// to the life runner. One scenario report per such scenario, filled from its schedule
// exploration (ScheduleScenario::ExploreSchedules) of `ExploreOptions::flow_schedules` runs (0:
// kDefaultFlowSchedules): a bounded exhaustive phase (DefaultFlowExploreOptions), then PCT
// (depth 3), two runs in three with one seeded fault (a crash of one actor or a power loss at an
// actor's step; time advances as the clock actor is scheduled), seeded from the root seed, every
// invariant judged after every run. Distinct states are counted over the first
// StateCountedSchedules(budget) of those schedules only (keying every choice point costs about
// ten times a run), and the report says over how many. Counterexamples are shrunk, with the
// `stepfault replay --scenario NAME --plan F --schedule S` command that replays them (the
// scenario writes it). The scenario's host hazards switched on in `config.hazards` apply. The
// report has no cells (see reports::ScheduleCoverage): its `schedules` block says what was covered.
//
// Also the mutant hunt of one schedule scenario's host hazard (properties/mutants.h): the same
// exploration until the expected invariant breaks, at most kFlowMutantSchedules.
//
// Deterministic: a function of the options. Sharding: shard 1 explores the whole scenario, the
// others list it with nothing run, so `report merge` gives the unsharded report. Thread-safety:
// as ScheduleScenario::ExploreSchedules (each call independent).
#pragma once

#include <string>

#include "properties/explorer.h"
#include "reports/report_model.h"
#include "scenarios/schedule_scenario.h"

namespace stepfault::properties {

// Schedules `explore` runs per schedule scenario when not told (`explore --schedules N`).
// At least four times the most any interactive-flow hazard needed over seeds 1-9
// (docs/exploration.md: 774, flow-expiry-ignores-acceptance; every other at most 345).
inline constexpr int kDefaultFlowSchedules = 3200;
// Schedules a schedule-scenario mutant hunt may run before the mutant counts as survived.
inline constexpr int kFlowMutantSchedules = kDefaultFlowSchedules;
// The bounded exhaustive phase of the default exploration: no schedule with more preemptions.
inline constexpr int kFlowBoundedPreemptions = 2;

// The schedules of a budget that go to the bounded exhaustive phase: a quarter, at most 50 (the
// phase ends early when it has run every schedule within its bound; PCT then runs the rest).
int FlowBoundedSchedules(int budget);

// The default exploration of the scenario (`explore`, the mutant hunt): first a bounded exhaustive
// phase (iterative preemption bounding, at most kFlowBoundedPreemptions preemptions, state-hash
// pruned, no fault; FlowBoundedSchedules(budget) runs), which is the same for every seed, then PCT
// (depth 3, two runs in three with seeded faults) from `seed` for the rest of the budget. States
// are not keyed at every choice (count_states false). Hazards: none (the caller adds them).
scenarios::ScheduleSearchOptions DefaultFlowExploreOptions(uint64_t seed, int budget);
// Schedules of the INV-DETERMINISM check (explored twice, compared).
inline constexpr int kFlowDeterminismSchedules = 3;

// The schedules whose states are counted: the first 40 (all of a smaller budget).
int StateCountedSchedules(int budget);

// Explores `s` into `report`: its scenario report, violations and run count.
void AppendScheduleExploration(const scenarios::ScheduleScenario& s, const ExploreOptions& options,
                               reports::Report* report);
// Appends an exploration of `s` made elsewhere (`explore` runs it in a worker beside the
// variants: properties/worker_pool.h BackgroundJob) as AppendScheduleExploration would.
void AppendScheduleExploration(ScenarioExploration e, reports::Report* report);
// What stands for the exploration of `s` when the worker running it died (`how`: "died of signal
// 6 (Aborted)"): the scenario with nothing run and one INV-HARNESS violation, whose replay is the
// scenario's own exploration command (it runs the same search in the foreground).
ScenarioExploration ScheduleExplorationDied(const scenarios::ScheduleScenario& s,
                                            const ExploreOptions& options, const std::string& how);

// The scenario report and counterexamples of one schedule scenario (what the above appends).
ScenarioExploration ExploreScheduleScenario(const scenarios::ScheduleScenario& s,
                                            const ExploreOptions& options);

// Hunts the host hazard `hazard` ("host:NAME" or "NAME") of the schedule scenario that declares it
// (ScheduleScenarios()), expected to break `expected`: DefaultFlowExploreOptions(seed, schedules),
// stopping at the first violation of `expected`. The result's plan is the shrunk fault, replay
// the command with the schedule. A hazard no schedule scenario declares survives, unhunted.
reports::MutantResult HuntScheduleMutant(const std::string& hazard, const std::string& description,
                                         const std::string& expected, uint64_t seed, int schedules);

}  // namespace stepfault::properties
