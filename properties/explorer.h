// Exploration (docs/design.md §5): for every scenario, record the fault-free run's windows, inject
// every applicable action at every window (a cell), recover through as many lives as needed, and
// check every invariant; depth 2 adds a second fault in the first recovery life. The result is the
// coverage report model (reports/report_model.h), one matrix per scenario.
//
// Cells are enumerated in a fixed order (windows in fault-free order, actions in a fixed order),
// and each cell's outcome is a pure function of (scenario, plan, config), so the report is
// identical across runs, job counts and shard splits: --jobs forks worker processes that each run
// every N-th task; --shard I/N runs every N-th cell and marks the others not-run, for `report
// merge`. Thread-safety: not thread-safe; one exploration per process at a time.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "properties/life_runner.h"
#include "reports/report_model.h"
#include "scenarios/scenario.h"

namespace stepfault::properties {

struct ExploreOptions {
  RunConfig config;
  int depth = 1;
  // Action kinds to try (crash, powerloss, ioerror, corrupt, fail-after-write, topology,
  // duplicate-response, conflicting-response, observer-cancel); empty: all.
  std::vector<std::string> action_kinds;
  int shard_index = 1;  // 1-based
  int shard_count = 1;
  int jobs = 1;
  int64_t depth2_max_pairs = 200;  // per scenario; above it a seeded sample
  bool stop_at_first_violation = false;
  std::function<void(int64_t done, int64_t total)> progress;
};

struct ScenarioExploration {
  reports::ScenarioReport report;
  std::vector<reports::Violation> violations;
};

ScenarioExploration ExploreScenario(const scenarios::Scenario& scenario,
                                    const ExploreOptions& options);

// Explores every scenario into one report (canonicalized). `command` is recorded in the report.
reports::Report Explore(const std::vector<std::shared_ptr<const scenarios::Scenario>>& scenarios,
                        const ExploreOptions& options, const std::string& command);

// The action kind names ExploreOptions::action_kinds accepts.
const std::vector<std::string>& ActionKindNames();

}  // namespace stepfault::properties
