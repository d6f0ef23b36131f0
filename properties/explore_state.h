// The state of one scenario variant's exploration (private to properties/explore*.cc): the windows
// discovered so far, the cells injected, the crash states seen, and the report being filled. The
// phases of ExploreScenario are free functions over it, in properties/explore_levels.cc.
// Thread-safety: one thread.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "faults/injector.h"
#include "properties/explorer.h"
#include "properties/task_pool.h"

namespace stepfault::properties::internal {

// One run to perform: a plan whose last fault strikes `action` at the window `window_id`.
struct Task {
  faults::Plan plan;
  std::string window_id;
  std::string action;
  bool owned = true;  // this shard records (and at the deepest level runs) it
};

struct WindowInfo {
  reports::Window row;
  std::vector<faults::FaultAction> actions;  // applicable here and supported by the scenario
};

struct ExploreState {
  const scenarios::Scenario* scenario = nullptr;
  ExploreOptions options;
  ScenarioExploration out;
  std::vector<WindowInfo> windows;
  std::map<std::string, size_t> window_index;               // by row id
  std::set<std::pair<std::string, std::string>> scheduled;  // (window id, action) planned
  std::set<std::string> plans_scheduled;                    // plan texts, never run twice
  std::set<std::pair<int, std::string>> crash_states;       // (life, world digest)
  std::map<std::pair<std::string, std::string>, reports::Cell> cells;  // ran cells
  std::map<std::string, int64_t> violated_runs;
  std::set<std::string> points_reached;
  int64_t task_counter = 0;  // tasks enumerated so far (shard ownership)
};

// Whether the scenario supports `a` (recovery-side actions it lists) and whether --actions wants
// it.
bool Supported(const faults::FaultAction& a, const scenarios::Scenario& s);
bool Filtered(const faults::FaultAction& a, const ExploreOptions& o);

// Registers the windows of `r`'s lives from `first_life` (0-based) on; `recovery` marks new ones.
void Discover(ExploreState& st, const TaskResult& r, size_t first_life, bool recovery);
// The first level: every wanted action at every window of every life of the fault-free run.
std::vector<Task> FirstLevel(ExploreState& st, const TaskResult& reference);
// The next level grown from `results` of `tasks`: the recovery of every new crash state crashed
// and powered off everywhere, and every action not yet tried at a newly discovered window.
std::vector<Task> NextLevel(ExploreState& st, const std::vector<Task>& tasks,
                            const std::vector<TaskResult>& results);
// Counts the crash states of a level that will not be explored further (the deepest level).
void CountBeyondDepth(ExploreState& st, const std::vector<Task>& tasks,
                      const std::vector<TaskResult>& results);
// Records an owned task's outcome in its cell, the run counts and the violations.
void Record(ExploreState& st, const Task& task, const TaskResult& r);
// Repeats a seeded sample of the owned tasks and reports INV-DETERMINISM on any difference.
void CheckDeterminism(ExploreState& st, const std::vector<Task>& tasks,
                      const std::vector<TaskResult>& results);
// The matrix, invariant results and counters of the scenario report, from the state.
void FinishReport(ExploreState& st);

}  // namespace stepfault::properties::internal
