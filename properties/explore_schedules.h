// Schedule exploration of the interactive-flow world (scenarios/interactive_flow/flow_world.h):
// many runs of its five actors, each under a strategy (PCT by default, or a random walk, or
// bounded depth-first with state hashing) and, for most runs, one fault (crash of one actor or a
// power loss at an actor's step), counting what was covered and keeping every violation with the
// schedule and fault that replay it. A violation is shrunk before it is reported: without its
// fault if that still breaks the same invariant, then to the shortest prefix of its choices that
// does (the rest of the run takes the lowest enabled actor), so the printed schedule is small and
// replays exactly. Also the mutant hunt: how many schedules each strategy needs to kill each flow
// hazard, by its expected invariant.
//
// This is the explorer entry point of the multi-actor capability; it does not go through
// properties/explorer.h (one host per life). Deterministic: a function of the options.
// Thread-safety: each call is independent.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenarios/interactive_flow/flow_world.h"

namespace stepfault::properties {

struct ScheduleExploreOptions {
  std::string strategy = "pct";  // "pct", "random" or "dfs"
  int pct_depth = 3;
  uint64_t seed = 1;
  int schedules = 200;            // runs (dfs: at most this many)
  bool with_faults = true;        // pct/random: two runs in three carry one seeded fault
  bool stop_at_first = false;     // stop at the first violation
  std::string stop_at_invariant;  // stop at the first violation of this invariant ("" none)
  bool shrink = true;
  bool count_states = true;  // pct/random: key every choice (about ten times slower per run)
  scenarios::flow::FlowOptions flow;
};

struct ScheduleCounterexample {
  std::string invariant;
  std::string message;
  std::string schedule;
  std::string fault;  // FlowFaultText
  uint64_t context_switches = 0;
  int found_at = 0;    // 1-based index of the run that found it (before shrinking)
  std::string replay;  // the command that replays it
};

struct ScheduleExploration {
  uint64_t schedules = 0;
  uint64_t distinct_states = 0;  // distinct state keys at choice points (0 unless counted; see
                                 // flow_world.h StateKey: db and journal bytes, actor positions)
  uint64_t distinct_final_worlds = 0;
  uint64_t context_switches = 0;
  uint64_t steps = 0;
  uint64_t faults_fired = 0;
  uint64_t windows = 0;  // distinct "<actor>@<point>" scheduling points reached under interleaving
  bool dfs_complete = false;
  std::vector<ScheduleCounterexample> violations;  // first per invariant
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

// The hazard set of the named flow mutant (flow_hazards.h names, with or without "host:").
// Returns false for an unknown name.
bool FlowOptionsForMutant(const std::string& name, scenarios::flow::FlowOptions* out);

// Runs up to options.schedules runs, stopping at the first violation of `invariant`; returns how
// many it took to hit `invariant` (schedules + 1 when none did).
int SchedulesToKill(const ScheduleExploreOptions& options, const std::string& invariant);

// The mutant hunt of the flow hazards: for each hazard and each seed 1..seeds, how many schedules
// PCT (depth options.pct_depth) and a random walk need to break the hazard's expected invariant
// (cap + 1 when none of `options.schedules` did); medians over the seeds.
struct FlowHuntRow {
  std::string hazard;
  std::string invariant;
  std::vector<int> pct;
  std::vector<int> random;
  double pct_median = 0;
  double random_median = 0;
};
std::vector<FlowHuntRow> HuntFlowMutants(const ScheduleExploreOptions& options, int seeds);

}  // namespace stepfault::properties
