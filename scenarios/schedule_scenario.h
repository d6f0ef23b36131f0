// ScheduleScenario: a scenario with several actors in one world (scenarios/scenario.h
// ScenarioInfo is what it shares with the one-host-per-life Scenario). The harness does not run
// it one life at a time: it explores interleavings of its actors (schedules), each under a fault
// plan, and judges every invariant after every run. What the generic schedule explorer
// (properties/explore_flow.h: `explore`, the mutant hunt) and `stepfault replay` need from such a
// scenario is the few virtuals below; the scenario's folder owns its world, its plan grammar, its
// strategies' use and its replay command (interactive_flow/ is the one built in).
//
// The model is FoundationDB's TestWorkload: one interface for the checks and the faults, the
// scenario composed by data (the exploration options and the hazard names), not by subclassing
// the explorer. Thread-safety: a scenario object is immutable; calls are independent.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/status.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// How to explore schedules: a strategy (PCT by default, or a random walk, or bounded exhaustive
// exploration: iterative preemption bounding with state hashing, or plain depth-first), a budget,
// a seed, and what to stop at. The scenario's own options (its world's knobs) are its business.
struct ScheduleSearchOptions {
  std::string strategy = "pct";  // "pct", "random", "dfs" (preemption bounded) or "dfs-plain"
  int pct_depth = 3;
  uint64_t seed = 1;
  int schedules = 200;            // runs (dfs: at most this many)
  bool with_faults = true;        // pct/random: two runs in three carry one seeded fault
  bool stop_at_first = false;     // stop at the first violation
  std::string stop_at_invariant;  // stop at the first violation of this invariant ("" none)
  bool shrink = true;
  bool count_states = true;       // pct/random: key every choice (about ten times slower per run)
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
  std::string fault;  // the plan's text, in the scenario's plan grammar
  uint64_t context_switches = 0;
  int found_at = 0;                     // 1-based index of the run that found it (before shrinking)
  std::string replay;                   // the command that replays it
  uint64_t context_switches_found = 0;  // before shrinking
  int shrink_runs = 0;                  // replays shrinking spent
  bool switches_minimal = false;        // no single remaining switch can be removed
};

struct ScheduleExploration {
  uint64_t schedules = 0;
  uint64_t distinct_states = 0;  // distinct state keys at choice points (0 unless counted; the
                                 // scenario's world defines the key); dfs without count_states:
                                 // the keys it branched from
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

// One schedule to replay exactly, as `stepfault replay --scenario S --plan P --schedule C` gives
// it.
struct ScheduleReplayRequest {
  std::string plan;                  // the scenario's plan text
  std::string schedule;              // the printed schedule (faults/actor_scheduler.h encoding)
  std::vector<std::string> hazards;  // --hazard values ("host:NAME" or "NAME")
  std::string params;                // --params JSON text ("" none)
  bool trace = false;                // keep every scheduling point
};

// What one replayed schedule did.
struct ScheduleReplayResult {
  std::vector<std::string> trace;   // with `trace`: every scheduling point
  std::vector<std::string> deaths;  // the actors that died, and how
  std::vector<Violation> violations;
  std::string digest;        // the final world (after recovery)
  std::string schedule;      // the schedule the run took
  std::string plan;          // the plan's text, normalised
  std::string final_status;  // the scenario's own word for how the run ended
  uint64_t steps = 0;        // scheduling points
  uint64_t context_switches = 0;
  uint64_t divergences = 0;  // choices that could not be followed (0 for a schedule it printed)
};

class ScheduleScenario : public ScenarioInfo {
 public:
  const ScheduleScenario* AsScheduleScenario() const final { return this; }
  // Explores `search` with the host hazards `hazards` (names of host_hazards()) switched on:
  // deterministic, a function of its arguments. Every counterexample is shrunk (search.shrink)
  // and carries the command that replays it (ReplaySchedule's command line).
  virtual ScheduleExploration ExploreSchedules(const ScheduleSearchOptions& search,
                                               const HostHazards& hazards) const = 0;
  // The command line that runs ExploreSchedules(search, hazards) again (for a counterexample of
  // INV-DETERMINISM).
  virtual std::string ExploreCommand(const ScheduleSearchOptions& search,
                                     const HostHazards& hazards) const = 0;
  // Parses the request (its plan grammar, its hazards and params) and replays the schedule
  // exactly. InvalidArgument (saying what is wrong) for a request it cannot parse.
  virtual Result<ScheduleReplayResult> ReplaySchedule(
      const ScheduleReplayRequest& request) const = 0;
};

}  // namespace stepfault::scenarios
