// ExploreScenario (the levels of one variant) and Explore (every scenario, every variant).
#include "properties/explorer.h"

#include <algorithm>

#include "engine/stores/store_kinds.h"
#include "faults/points.h"
#include "properties/explore_state.h"
#include "properties/interrupt.h"
#include "properties/task_pool.h"
#include "reports/merge.h"
#include "scenarios/invariants.h"

namespace stepfault::properties {
namespace {

using internal::ExploreState;
using internal::Task;

// The fault-free run: recorded by shard 1, checked for determinism by running it twice.
TaskResult RunReference(ExploreState& st) {
  const Execution ex = RunPlan(*st.scenario, faults::Plan{}, st.options.config);
  TaskResult ref = Summarize(faults::Plan{}, ex);
  if (st.options.shard_index != 1) return ref;
  reports::ScenarioReport& rep = st.out.report;
  rep.runs = 1;
  rep.lives = static_cast<int64_t>(ex.lives.size());
  Task reference{faults::Plan{}, "fault-free", "none", true};
  std::vector<scenarios::Violation> found = ex.violations;
  if (st.options.determinism_every > 0) {
    ++rep.determinism_checks;
    const Execution again = RunPlan(*st.scenario, faults::Plan{}, st.options.config);
    if (Summarize(faults::Plan{}, again).fingerprint != ref.fingerprint) {
      found.push_back({scenarios::kInvDeterminism,
                       "the fault-free run gave different traces or final worlds twice"});
    }
  }
  std::set<std::string> seen;
  for (const auto& v : found) {
    if (!seen.insert(v.invariant).second) continue;
    st.violated_runs[v.invariant]++;
    st.out.violations.push_back({rep.name, v.invariant, "fault-free", "none",
                                 faults::PrintPlan(faults::Plan{}),
                                 ReplayCommand(st.scenario->replay_name(), {}, st.options.config),
                                 v.message, "", st.options.config.seed});
  }
  return ref;
}

// Runs one level: every task below the deepest level (later levels grow from all of them), only
// this shard's own at the deepest. Records and samples the owned ones.
std::vector<TaskResult> RunLevel(ExploreState& st, const std::vector<Task>& tasks, int level,
                                 bool deepest) {
  std::vector<size_t> which;
  std::vector<faults::Plan> plans;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (deepest && !tasks[i].owned) continue;
    which.push_back(i);
    plans.push_back(tasks[i].plan);
  }
  const auto& progress = st.options.progress;
  auto ran = RunTasks(
      *st.scenario, st.options.config, plans, st.options.jobs,
      [&](int64_t done) {
        if (progress) progress(level, done, static_cast<int64_t>(plans.size()));
      },
      st.options.reuse);
  std::vector<TaskResult> results(tasks.size());
  for (size_t k = 0; k < which.size(); ++k) results[which[k]] = std::move(ran[k]);
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].owned && !results[i].interrupted) internal::Record(st, tasks[i], results[i]);
  }
  internal::CheckDeterminism(st, tasks, results);
  return results;
}

// Mutant hunting: the first level only, one task at a time, up to the first violation.
void RunUntilFirstViolation(ExploreState& st, const std::vector<Task>& tasks) {
  if (!st.out.violations.empty()) return;
  for (const Task& t : tasks) {
    TaskResult r = RunTasks(*st.scenario, st.options.config, {t.plan}, 1, nullptr)[0];
    if (r.interrupted) return;
    internal::Record(st, t, r);
    if (!r.violations.empty()) return;
  }
}

}  // namespace

const std::vector<std::string>& ActionKindNames() {
  static const auto* names = [] {
    auto* out = new std::vector<std::string>;
    for (faults::FaultActionKind k : faults::AllFaultActionKinds())
      out->emplace_back(faults::FaultActionKindName(k));
    return out;
  }();
  return *names;
}

const std::vector<std::string>& CheckpointStoreNames() {
  static const auto* names = [] {
    auto* out = new std::vector<std::string>;
    for (const CheckpointStoreKind& k : CheckpointStoreKinds()) {
      out->push_back(k.name);
    }
    return out;
  }();
  return *names;
}

ScenarioExploration ExploreScenario(const scenarios::Scenario& scenario,
                                    const ExploreOptions& options) {
  ExploreState st;
  st.scenario = &scenario;
  st.options = options;
  reports::ScenarioReport& rep = st.out.report;
  if (rep.name.empty()) rep.name = scenario.name();
  rep.description = scenario.description();
  rep.invariants = scenario.invariants();
  for (const char* inv :
       {scenarios::kInvLiveness, scenarios::kInvDeterminism, scenarios::kInvHarness}) {
    rep.invariants.push_back(inv);
  }
  const TaskResult reference = RunReference(st);
  internal::Discover(st, reference, 0, /*recovery=*/false);
  std::vector<Task> tasks = internal::FirstLevel(st, reference);
  if (options.stop_at_first_violation) {
    RunUntilFirstViolation(st, tasks);
    tasks.clear();
  }
  for (int level = 1; level <= options.depth && !tasks.empty(); ++level) {
    const bool deepest = level == options.depth;
    std::vector<TaskResult> results = RunLevel(st, tasks, level, deepest);
    if (Interrupted()) break;  // what ran is recorded; nothing grows from a partial level
    if (deepest) {
      internal::CountBeyondDepth(st, tasks, results);
    } else {
      tasks = internal::NextLevel(st, tasks, results);
    }
  }
  internal::FinishReport(st);
  return std::move(st.out);
}

}  // namespace stepfault::properties
