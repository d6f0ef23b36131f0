// Schedule exploration of the interactive-flow world (flow_world.h), behind its ScheduleScenario
// (flow_scenario.cc; the generic explorer is properties/explore_flow.h):
// many runs of its five actors, each under a strategy (PCT by default, or a random walk, or
// bounded exhaustive exploration: iterative preemption bounding with state hashing, or plain
// depth-first for comparison) and, for most runs, a fault plan (a crash of one actor or a power
// loss at an actor's step; one plan in three of those adds a later power loss or a time:advance),
// counting what was covered and keeping every violation with the schedule and plan that replay
// it. A violation is shrunk before it is reported, every step keeping "replays exactly and
// breaks the same invariant": each fault of the plan is dropped if the invariant still breaks
// without it (repeated until none can go), the choices are cut to their shortest failing prefix
// (the rest of the run takes the non-preemptive default), and then delta debugging removes
// individual context switches (faults/schedule_strategies.h ShrinkSwitches) until no single one
// can go (or the shrink budget is spent), so the printed schedule has few switches and replays
// exactly. Also the mutant hunt: how many schedules each strategy needs to kill each flow
// hazard, by its expected invariant.
//
// Deterministic: a function of the options.
// Thread-safety: each call is independent.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "scenarios/interactive_flow/flow_world.h"
#include "scenarios/schedule_scenario.h"

namespace stepfault::scenarios::flow {

// The search (scenarios/schedule_scenario.h) and the flow world's own options.
struct ScheduleExploreOptions : ScheduleSearchOptions {
  ScheduleExploreOptions() = default;
  // Implicit on purpose: `ScheduleExploreOptions o = DefaultFlowExploreOptions(...)`.
  ScheduleExploreOptions(
      const ScheduleSearchOptions& search)  // NOLINT(google-explicit-constructor)
      : ScheduleSearchOptions(search) {}
  FlowOptions flow;
};

ScheduleExploration ExploreFlowSchedules(const ScheduleExploreOptions& options);

// Replays a schedule and fault exactly (ReplayStrategy); divergences counts choices that could
// not be followed (0 for a schedule this build printed).
struct ScheduleReplay {
  scenarios::flow::FlowRunResult result;
  uint64_t divergences = 0;
};
ScheduleReplay ReplayFlowSchedule(const scenarios::flow::FlowOptions& flow,
                                  const std::vector<int>& choices,
                                  const scenarios::flow::FlowFault& fault);
ScheduleReplay ReplayFlowSchedule(const scenarios::flow::FlowOptions& flow,
                                  const std::vector<int>& choices,
                                  const scenarios::flow::FlowPlan& plan);

// Shrinks a violation of `invariant` that replaying `choices` under `plan` (with options.flow)
// shows, as exploration does before it reports (see above). The result's schedule and fault
// replay the violation exactly; found_at is 0. If the replay does not break `invariant`, the
// input is returned unshrunk.
ScheduleCounterexample ShrinkFlowCounterexample(const ScheduleExploreOptions& options,
                                                const std::string& invariant,
                                                const std::vector<int>& choices,
                                                const scenarios::flow::FlowPlan& plan);

// The hazard set of the named flow mutant (flow_hazards.h names, with or without "host:").
// Returns false for an unknown name.
bool FlowOptionsForMutant(const std::string& name, scenarios::flow::FlowOptions* out);
// The same for --hazard values: every one switched on in *out, or InvalidArgument naming the
// unknown one and the known ones.
Status FlowHazardsFrom(const std::vector<std::string>& names, FlowOptions* out);

// Runs up to options.schedules runs, stopping at the first violation of `invariant`; returns how
// many it took to hit `invariant` (schedules + 1 when none did).
int SchedulesToKill(const ScheduleExploreOptions& options, const std::string& invariant);

// The mutant hunt of the flow hazards: for each hazard and each seed 1..seeds, how many schedules
// each strategy needs to break the hazard's expected invariant (cap + 1 when none of
// `options.schedules` did): "bounded" (the bounded phase of options.bounded_first runs at most
// options.max_preemptions preemptions, then PCT: explore's default when the caller passes its
// figures), "pct" (depth options.pct_depth) and "random" (a random walk), those of `strategies`
// only; medians and worst over the seeds.
struct FlowHuntColumn {
  std::vector<int> per_seed;  // empty: not hunted
  double median = 0;
  int worst = 0;
};
struct FlowHuntRow {
  std::string hazard;
  std::string invariant;
  FlowHuntColumn bounded, pct, random;
};
std::vector<FlowHuntRow> HuntFlowMutants(const ScheduleExploreOptions& options, int seeds,
                                         const std::set<std::string>& strategies);

}  // namespace stepfault::scenarios::flow
