// Exploration (docs/design.md §5): for every scenario variant, record the windows of the fault-free
// run, inject every applicable action at every window (a cell), recover through as many lives as
// needed, and check every invariant; then go on from the crash states those runs left, to a
// fixpoint bounded by the depth (faults per plan):
//  - every distinct crash state (SimFs::Digest of the post-death world and the life it was left
//    in) below the depth has every window of its recovery lives crashed and powered off
//    (exhaustive: no sampling); a state equal to an earlier one reuses that state's exploration;
//  - every window first discovered in a later life (a recovery window) gets every applicable action
//    once, so the windows of every life are places to inject, not only the fault-free ones.
// Windows discovered at the depth limit, where one more fault would be needed, stay not-run: the
// coverage says so. The result is the coverage report model (reports/report_model.h), one matrix
// per scenario variant.
//
// Tasks are enumerated in a fixed order (level by level, each level in the order of the results it
// grew from), and each task's outcome is a pure function of (scenario, plan, config), so the report
// is identical across runs, job counts and shard splits: --jobs forks worker processes; --shard I/N
// runs every level below the deepest in full (later levels grow from its results) but records only
// every N-th task, and runs only its own tasks of the deepest level; `report merge` joins them.
// Thread-safety: not thread-safe; one exploration per process at a time.
#pragma once

#include <concepts>
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
  int depth = 2;  // faults per plan at most: 1, 2 (default) or 3
  // Action kinds to try (crash, powerloss, ioerror, corrupt, fail-after-write, topology,
  // duplicate-response, conflicting-response, observer-cancel); empty: all. The others show as
  // filtered cells.
  std::vector<std::string> action_kinds;
  int shard_index = 1;  // 1-based
  int shard_count = 1;
  int jobs = 1;
  // INV-DETERMINISM: a run is repeated when Hash64(seed, plan) % determinism_every == 0 (the
  // fault-free run always); 0 turns the check off.
  int determinism_every = 64;
  // Every parameter set of Scenario::Variants() and every checkpoint store (CheckpointStoreNames);
  // false: the default variant only (what a single `check` or a mutant hunt needs).
  bool all_variants = true;
  // With all_variants: only these checkpoint stores (in CheckpointStoreNames' order, whatever the
  // order here); empty: every store. How `explore --store` explores one store's variants alone.
  std::vector<std::string> stores;
  bool stop_at_first_violation = false;
  // Reuse the lives plans share (a RunMemo per process; properties/life_runner.h): the same report
  // either way, much faster at depth 2. false: every plan runs from scratch (the reference path).
  // The INV-DETERMINISM sample always runs from scratch.
  bool reuse = true;
  // Schedules per scenario with several actors (properties/explore_flow.h); 0: the default.
  int flow_schedules = 0;
  // Display only (may be empty). `variant` hears each variant Explore is about to explore (index
  // from 0 of `count`, every variant that will run: skipped indistinct ones are not counted);
  // `progress` hears the plans of one level of the current variant (level 1..depth).
  std::function<void(int64_t index, int64_t count, const std::string& name)> variant;
  std::function<void(int level, int64_t done, int64_t total)> progress;
};

struct ScenarioExploration {
  reports::ScenarioReport report;
  std::vector<reports::Violation> violations;
};

// Explores one variant: `config.params` (null: the default) and `config.checkpoint_store`.
ScenarioExploration ExploreScenario(const scenarios::Scenario& scenario,
                                    const ExploreOptions& options);

// Explores every scenario (every variant) into one report (canonicalized). `command` is recorded.
// Every variant's fault-free run comes first: when one breaks an invariant, nothing is explored
// under faults (every fault would be blamed for it) and the report holds only that variant, its
// fault-free run and its violations; *fault_free_failure (when given) names the variant.
reports::Report Explore(
    const std::vector<std::shared_ptr<const scenarios::ScenarioInfo>>& scenarios,
    const ExploreOptions& options, const std::string& command,
    std::string* fault_free_failure = nullptr);
// The same over a list of one kind (BuiltinScenarios(), ScheduleScenarios()).
template <typename Kind>
requires std::derived_from<Kind, scenarios::ScenarioInfo> reports::Report Explore(
    const std::vector<std::shared_ptr<const Kind>>& scenarios, const ExploreOptions& options,
    const std::string& command, std::string* fault_free_failure = nullptr) {
  return Explore(std::vector<std::shared_ptr<const scenarios::ScenarioInfo>>(scenarios.begin(),
                                                                             scenarios.end()),
                 options, command, fault_free_failure);
}

// The action kind names ExploreOptions::action_kinds accepts: faults/plan.h's, in its order.
const std::vector<std::string>& ActionKindNames();

// The checkpoint stores every scenario is explored over: the names of CheckpointStoreKinds()
// (engine/stores/store_kinds.h: file, sqlite = WAL, sqlite-persist, sqlite-truncate,
// sqlite-delete).
const std::vector<std::string>& CheckpointStoreNames();

}  // namespace stepfault::properties
