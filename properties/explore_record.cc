// Recording outcomes into cells, the INV-DETERMINISM sample, and the scenario report's matrix and
// invariant results (see properties/explore_state.h).
#include <algorithm>

#include "engine/random.h"
#include "faults/points.h"
#include "properties/explore_state.h"
#include "scenarios/invariants.h"

namespace stepfault::properties::internal {
namespace {

using faults::FaultAction;

void AddViolation(ExploreState& st, const Task& task, const scenarios::Violation& v) {
  reports::Violation rv;
  rv.scenario = st.out.report.name;
  rv.invariant = v.invariant;
  rv.window = task.window_id;
  rv.action = task.action;
  rv.plan = faults::PrintPlan(task.plan);
  rv.replay = ReplayCommand(st.scenario->replay_name(), task.plan, st.options.config);
  rv.message = v.message;
  rv.seed = st.options.config.seed;
  st.out.violations.push_back(std::move(rv));
}

void MarkViolated(reports::Cell& cell, const std::string& inv) {
  if (std::find(cell.invariants_violated.begin(), cell.invariants_violated.end(), inv) ==
      cell.invariants_violated.end()) {
    cell.invariants_violated.push_back(inv);
    std::sort(cell.invariants_violated.begin(), cell.invariants_violated.end());
  }
  cell.outcome = reports::CellOutcome::kViolation;
}

// Every concrete action the scenario supports that applies at some registered point: the matrix
// columns, the same in every shard, in kind order.
std::vector<std::string> Columns(const scenarios::Scenario& s) {
  std::vector<std::pair<int, std::string>> ordered;
  std::set<std::string> seen;
  for (const faults::PointInfo& p : faults::AllPoints()) {
    std::vector<std::string> windows;
    for (const std::string& role : p.roles) windows.push_back(p.name + "[" + role + "]");
    if (p.roles.empty()) windows.push_back(p.name);
    for (const std::string& w : windows) {
      for (const FaultAction& a : faults::ApplicableFaultActions(w)) {
        const std::string name = faults::FaultActionName(a);
        if (Supported(a, s) && seen.insert(name).second)
          ordered.push_back({static_cast<int>(a.kind), name});
      }
    }
  }
  std::sort(ordered.begin(), ordered.end());
  std::vector<std::string> out;
  for (const auto& [kind, name] : ordered) out.push_back(name);
  return out;
}

}  // namespace

void Record(ExploreState& st, const Task& task, const TaskResult& r) {
  reports::Cell& cell = st.cells[{task.window_id, task.action}];
  cell.window = task.window_id;
  cell.action = task.action;
  cell.runs += 1;
  cell.lives_max = std::max(cell.lives_max, r.lives);
  st.out.report.runs += 1;
  st.out.report.lives += r.lives;
  std::set<std::string> invs;
  for (const auto& v : r.violations) {
    if (!invs.insert(v.invariant).second) continue;
    st.violated_runs[v.invariant]++;
    MarkViolated(cell, v.invariant);
    AddViolation(st, task, v);
  }
  if (invs.empty() && cell.outcome != reports::CellOutcome::kViolation)
    cell.outcome = reports::CellOutcome::kPass;
}

void CheckDeterminism(ExploreState& st, const std::vector<Task>& tasks,
                      const std::vector<TaskResult>& results) {
  if (st.options.determinism_every <= 0) return;
  std::vector<size_t> sample;
  std::vector<faults::Plan> plans;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const std::string text = faults::PrintPlan(tasks[i].plan);
    if (!tasks[i].owned || results[i].interrupted ||
        Hash64(text, st.options.config.seed) % static_cast<uint64_t>(st.options.determinism_every))
      continue;
    sample.push_back(i);
    plans.push_back(tasks[i].plan);
  }
  auto again = RunTasks(*st.scenario, st.options.config, plans, st.options.jobs, nullptr);
  for (size_t k = 0; k < sample.size(); ++k) {
    if (again[k].interrupted) continue;  // not run again: no check
    ++st.out.report.determinism_checks;
    const Task& task = tasks[sample[k]];
    if (again[k].fingerprint == results[sample[k]].fingerprint) continue;
    const scenarios::Violation v{scenarios::kInvDeterminism,
                                 "running the plan twice gave different traces or final worlds (" +
                                     results[sample[k]].fingerprint + " vs " +
                                     again[k].fingerprint + ")"};
    st.violated_runs[v.invariant]++;
    MarkViolated(st.cells[{task.window_id, task.action}], v.invariant);
    AddViolation(st, task, v);
  }
}

void FinishReport(ExploreState& st) {
  reports::ScenarioReport& rep = st.out.report;
  rep.actions = Columns(*st.scenario);
  std::vector<const WindowInfo*> rows;
  for (const WindowInfo& w : st.windows) {
    if (!w.row.recovery) rows.push_back(&w);  // fault-free rows in the reference run's order
  }
  std::vector<const WindowInfo*> recovery;
  for (const WindowInfo& w : st.windows) {
    if (w.row.recovery) recovery.push_back(&w);
  }
  std::sort(recovery.begin(), recovery.end(),
            [](const WindowInfo* a, const WindowInfo* b) { return a->row.id < b->row.id; });
  rows.insert(rows.end(), recovery.begin(), recovery.end());
  for (const WindowInfo* w : rows) {
    rep.windows.push_back(w->row);
    for (const std::string& action : rep.actions) {
      auto it = st.cells.find({w->row.id, action});
      reports::Cell cell;
      if (it != st.cells.end()) {
        cell = it->second;
      } else {
        cell.window = w->row.id;
        cell.action = action;
        auto a = std::find_if(w->actions.begin(), w->actions.end(), [&](const FaultAction& x) {
          return faults::FaultActionName(x) == action;
        });
        cell.outcome = a == w->actions.end()      ? reports::CellOutcome::kNotApplicable
                       : Filtered(*a, st.options) ? reports::CellOutcome::kFiltered
                                                  : reports::CellOutcome::kNotRun;
      }
      rep.cells.push_back(std::move(cell));
    }
  }
  rep.points_reached.assign(st.points_reached.begin(), st.points_reached.end());
  for (const std::string& inv : rep.invariants) {
    const int64_t checks = inv == scenarios::kInvDeterminism ? rep.determinism_checks : rep.runs;
    rep.invariant_results.push_back(
        {inv, scenarios::InvariantStatement(inv), checks, st.violated_runs[inv]});
  }
  for (const auto& [inv, n] : st.violated_runs) {
    if (std::find(rep.invariants.begin(), rep.invariants.end(), inv) != rep.invariants.end())
      continue;
    rep.invariant_results.push_back({inv, scenarios::InvariantStatement(inv), rep.runs, n});
  }
}

}  // namespace stepfault::properties::internal
