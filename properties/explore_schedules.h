// Schedule exploration of the interactive-flow world (scenarios/interactive_flow/flow_world.h):
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
// This is the explorer entry point of the multi-actor capability; it does not go through
// properties/explorer.h (one host per life). Deterministic: a function of the options.
// Thread-safety: each call is independent.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "scenarios/interactive_flow/flow_world.h"

namespace stepfault::properties {

struct ScheduleExploreOptions {
  std::string strategy = "pct";  // "pct", "random", "dfs" (preemption bounded) or "dfs-plain"
  int pct_depth = 3;
  uint64_t seed = 1;
  int schedules = 200;            // runs (dfs: at most this many)
  bool with_faults = true;        // pct/random: two runs in three carry one seeded fault
  bool stop_at_first = false;     // stop at the first violation
  std::string stop_at_invariant;  // stop at the first violation of this invariant ("" none)
  bool shrink = true;
  bool count_states = true;  // pct/random: key every choice (about ten times slower per run)
  scenarios::flow::FlowOptions flow;
  int shrink_runs = 300;          // replays the switch shrinking of one violation may spend
  int max_preemptions = INT_MAX;  // dfs: schedules with more preemptions are not run
  // pct/random: a bounded exhaustive phase first: up to this many runs of iterative preemption
  // bounding ("dfs", at most max_preemptions preemptions, state-hash pruned, no fault), ending
  // early when every such schedule was run; `strategy` runs the rest of `schedules` exactly as it
  // would alone (its run i is seeded and planned as its own run i). 0: no such phase.
  int bounded_first = 0;
};

struct ScheduleCounterexample {
  std::string invariant;
  std::string message;
  std::string schedule;
  std::string fault;  // FlowPlanText
  uint64_t context_switches = 0;
  int found_at = 0;                     // 1-based index of the run that found it (before shrinking)
  std::string replay;                   // the command that replays it
  uint64_t context_switches_found = 0;  // before shrinking
  int shrink_runs = 0;                  // replays shrinking spent
  bool switches_minimal = false;        // no single remaining switch can be removed
};

struct ScheduleExploration {
  uint64_t schedules = 0;
  uint64_t distinct_states = 0;  // distinct state keys at choice points (0 unless counted; see
                                 // flow_world.h StateKey: db and journal bytes, actor positions);
                                 // dfs without count_states: the keys it branched from
  uint64_t distinct_final_worlds = 0;
  uint64_t context_switches = 0;
  uint64_t steps = 0;
  uint64_t faults_fired = 0;
  uint64_t windows = 0;  // distinct "<actor>@<point>" scheduling points reached under interleaving
  bool dfs_complete = false;
  std::vector<ScheduleCounterexample> violations;     // first per invariant
  std::map<int, uint64_t> runs_per_preemption_bound;  // dfs: schedules run with 0, 1, 2, ...
  // bounded_first: the runs of the bounded phase (the first of `schedules`), whether it ran every
  // schedule within its bound, and the state keys it branched from (its own pruning set).
  uint64_t bounded_schedules = 0;
  bool bounded_complete = false;
  uint64_t bounded_states = 0;
  // Added for the reports (properties/explore_flow.h): the schedules that broke each invariant
  // (counted once per schedule), and the distinct "<actor>@<point>" windows, sorted.
  std::map<std::string, uint64_t> violated_schedules;
  std::vector<std::string> window_names;
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

}  // namespace stepfault::properties
