// ExploreScenario: windows, cells, tasks, depth 2, and the scenario's report.
#include "properties/explorer.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/random.h"
#include "faults/points.h"
#include "properties/task_pool.h"
#include "reports/merge.h"
#include "scenarios/invariants.h"

namespace stepfault::properties {
namespace {

using faults::FaultAction;
using faults::FaultActionKind;

const char* KindName(FaultActionKind k) {
  switch (k) {
    case FaultActionKind::kCrash:
      return "crash";
    case FaultActionKind::kPowerLoss:
      return "powerloss";
    case FaultActionKind::kIOError:
      return "ioerror";
    case FaultActionKind::kCorrupt:
      return "corrupt";
    case FaultActionKind::kFailAfterWrite:
      return "fail-after-write";
    case FaultActionKind::kTopology:
      return "topology";
    case FaultActionKind::kDuplicateResponse:
      return "duplicate-response";
    case FaultActionKind::kConflictingResponse:
      return "conflicting-response";
    case FaultActionKind::kObserverCancel:
      return "observer-cancel";
    case FaultActionKind::kNone:
      return "none";
  }
  return "none";
}

struct WindowRef {
  int life = 0;  // 1-based life of the fault-free run
  faults::Window window;
  reports::Window row;
};

struct CellRef {
  size_t window_index;
  FaultAction action;
  std::string action_name;
};

faults::Plan PlanFor(int life, const faults::Fault& fault) {
  faults::Plan plan;
  for (int i = 1; i < life; ++i) plan.faults.push_back(faults::Fault::None());
  plan.faults.push_back(fault);
  return plan;
}

bool Wanted(const FaultAction& a, const ExploreOptions& o, const scenarios::Scenario& s) {
  if (faults::IsRecoverySide(a)) {
    auto actions = s.RecoveryActions();
    if (std::find(actions.begin(), actions.end(), a) == actions.end()) return false;
  }
  if (o.action_kinds.empty()) return true;
  return std::find(o.action_kinds.begin(), o.action_kinds.end(), KindName(a.kind)) !=
         o.action_kinds.end();
}

void AddViolations(const scenarios::Scenario& s, const ExploreOptions& o, const faults::Plan& plan,
                   const std::string& window, const std::string& action, const TaskResult& r,
                   std::vector<reports::Violation>* out) {
  std::set<std::string> seen;
  for (const auto& v : r.violations) {
    if (!seen.insert(v.invariant).second) continue;
    reports::Violation rv;
    rv.scenario = s.name();
    rv.invariant = v.invariant;
    rv.window = window;
    rv.action = action;
    rv.plan = faults::PrintPlan(plan);
    rv.replay = ReplayCommand(s.replay_name(), plan, o.config);
    rv.message = v.message;
    rv.seed = o.config.seed;
    out->push_back(std::move(rv));
  }
}

}  // namespace

const std::vector<std::string>& ActionKindNames() {
  static const auto* names = new std::vector<std::string>{"crash",
                                                          "powerloss",
                                                          "ioerror",
                                                          "corrupt",
                                                          "fail-after-write",
                                                          "topology",
                                                          "duplicate-response",
                                                          "conflicting-response",
                                                          "observer-cancel"};
  return *names;
}

ScenarioExploration ExploreScenario(const scenarios::Scenario& scenario,
                                    const ExploreOptions& options) {
  ScenarioExploration out;
  reports::ScenarioReport& rep = out.report;
  rep.name = scenario.name();
  rep.description = scenario.description();
  rep.invariants = scenario.invariants();
  rep.invariants.push_back(scenarios::kInvLiveness);

  // The fault-free reference run and its windows.
  // Every shard records the windows; only the first counts the reference run itself.
  const Execution reference = RunPlan(scenario, faults::Plan{}, options.config);
  std::map<std::string, int64_t> violated_runs;
  if (options.shard_index == 1) {
    rep.runs = 1;
    rep.lives = static_cast<int64_t>(reference.lives.size());
    TaskResult ref_result;
    ref_result.violations = reference.violations;
    AddViolations(scenario, options, faults::Plan{}, "fault-free", "none", ref_result,
                  &out.violations);
    std::set<std::string> invs;
    for (const auto& v : reference.violations) invs.insert(v.invariant);
    for (const std::string& inv : invs) violated_runs[inv]++;
  }

  std::vector<WindowRef> windows;
  std::map<std::string, int> command_uses;
  for (size_t l = 0; l < reference.lives.size(); ++l) {
    const LifeRecord& life = reference.lives[l];
    std::string command = life.report.command.empty() ? "life" : life.report.command;
    if (command_uses[command]++ > 0) command += "#" + std::to_string(l + 1);
    std::string label;
    for (const faults::Window& w : life.windows) {
      label = scenario.BusinessWindowAfter(life.report.command, w.point, label);
      WindowRef ref{static_cast<int>(l + 1), w, {}};
      ref.row.id = command + ":" + w.point + "#" + std::to_string(w.occurrence);
      ref.row.point = w.point;
      ref.row.occurrence = w.occurrence;
      ref.row.business_window = label;
      windows.push_back(std::move(ref));
    }
  }

  // Cells: every window x every action that applies there.
  std::vector<CellRef> cells;
  std::map<std::string, FaultAction> columns;
  for (size_t wi = 0; wi < windows.size(); ++wi) {
    for (const FaultAction& a : faults::ApplicableFaultActions(windows[wi].window.point)) {
      if (!Wanted(a, options, scenario)) continue;
      const std::string name = faults::FaultActionName(a);
      columns.emplace(name, a);
      cells.push_back({wi, a, name});
    }
  }
  std::vector<std::pair<int, std::string>> ordered;
  for (const auto& [name, a] : columns) ordered.push_back({static_cast<int>(a.kind), name});
  std::sort(ordered.begin(), ordered.end());
  for (const auto& [kind, name] : ordered) rep.actions.push_back(name);
  for (const WindowRef& w : windows) rep.windows.push_back(w.row);

  // Which cells this shard runs, and their plans.
  std::vector<size_t> mine;
  std::vector<faults::Plan> plans;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (static_cast<int>(c % static_cast<size_t>(options.shard_count)) != options.shard_index - 1)
      continue;
    auto fault = faults::FaultAtWindow(cells[c].action, windows[cells[c].window_index].window);
    SF_CHECK(fault.ok());
    mine.push_back(c);
    plans.push_back(PlanFor(windows[cells[c].window_index].life, *fault));
  }
  std::vector<TaskResult> results;
  if (options.stop_at_first_violation) {
    // Mutant hunting: stop at the first violation (the reference counts too).
    if (reference.violations.empty()) {
      for (size_t i = 0; i < plans.size(); ++i) {
        results.push_back(RunTasks(scenario, options.config, {plans[i]}, 1, nullptr)[0]);
        if (!results.back().violations.empty()) break;
      }
    }
  } else {
    results = RunTasks(scenario, options.config, plans, options.jobs, [&](int64_t done) {
      if (options.progress) options.progress(done, static_cast<int64_t>(plans.size()));
    });
  }

  // Matrix: n/a everywhere an action does not apply, not-run where another shard runs the cell.
  std::map<std::pair<size_t, std::string>, size_t> cell_at;
  for (size_t c = 0; c < cells.size(); ++c)
    cell_at[{cells[c].window_index, cells[c].action_name}] = c;
  std::vector<reports::Cell> matrix;
  for (size_t wi = 0; wi < windows.size(); ++wi) {
    for (const std::string& action : rep.actions) {
      reports::Cell cell;
      cell.window = windows[wi].row.id;
      cell.action = action;
      cell.outcome = cell_at.count({wi, action}) > 0 ? reports::CellOutcome::kNotRun
                                                     : reports::CellOutcome::kNotApplicable;
      matrix.push_back(std::move(cell));
    }
  }
  auto matrix_cell = [&](size_t c) -> reports::Cell& {
    const size_t wi = cells[c].window_index;
    const size_t ai = static_cast<size_t>(
        std::find(rep.actions.begin(), rep.actions.end(), cells[c].action_name) -
        rep.actions.begin());
    return matrix[wi * rep.actions.size() + ai];
  };
  auto record = [&](size_t c, const faults::Plan& plan, const TaskResult& r) {
    reports::Cell& cell = matrix_cell(c);
    cell.runs += 1;
    cell.lives_max = std::max(cell.lives_max, r.lives);
    rep.runs += 1;
    rep.lives += r.lives;
    std::set<std::string> invs;
    for (const auto& v : r.violations) invs.insert(v.invariant);
    for (const std::string& inv : invs) {
      violated_runs[inv]++;
      if (std::find(cell.invariants_violated.begin(), cell.invariants_violated.end(), inv) ==
          cell.invariants_violated.end()) {
        cell.invariants_violated.push_back(inv);
      }
    }
    std::sort(cell.invariants_violated.begin(), cell.invariants_violated.end());
    if (!invs.empty()) {
      cell.outcome = reports::CellOutcome::kViolation;
    } else if (cell.outcome != reports::CellOutcome::kViolation) {
      cell.outcome = reports::CellOutcome::kPass;
    }
    AddViolations(scenario, options, plan, cell.window, cell.action, r, &out.violations);
  };
  for (size_t i = 0; i < results.size(); ++i) record(mine[i], plans[i], results[i]);

  // Depth 2: a second death in the first recovery life.
  if (options.depth >= 2 && !options.stop_at_first_violation) {
    struct Pair {
      size_t cell;
      faults::Plan plan;
    };
    std::vector<Pair> pairs;
    for (size_t i = 0; i < results.size(); ++i) {
      const TaskResult& r = results[i];
      if (r.died_in_life == 0) continue;
      for (const faults::Window& w2 : r.recovery_windows) {
        for (FaultActionKind k : {FaultActionKind::kCrash, FaultActionKind::kPowerLoss}) {
          auto second = faults::FaultAtWindow(FaultAction::Of(k), w2);
          if (!second.ok()) continue;
          faults::Plan plan = plans[i];
          plan.faults.resize(static_cast<size_t>(r.died_in_life));
          plan.faults.push_back(*second);
          pairs.push_back({mine[i], std::move(plan)});
        }
      }
    }
    reports::Depth2 d2;
    d2.pairs_total = static_cast<int64_t>(pairs.size());
    if (static_cast<int64_t>(pairs.size()) > options.depth2_max_pairs) {
      Rng rng(DeriveSeed(options.config.seed, "depth2|" + scenario.name()));
      std::vector<size_t> idx(pairs.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      for (size_t i = 0; i < static_cast<size_t>(options.depth2_max_pairs); ++i) {
        std::swap(idx[i], idx[i + rng.Uniform(idx.size() - i)]);
      }
      idx.resize(static_cast<size_t>(options.depth2_max_pairs));
      std::sort(idx.begin(), idx.end());
      std::vector<Pair> sample;
      for (size_t i : idx) sample.push_back(std::move(pairs[i]));
      pairs = std::move(sample);
      d2.sampled = true;
    }
    std::vector<faults::Plan> pair_plans;
    for (const Pair& p : pairs) pair_plans.push_back(p.plan);
    auto pair_results = RunTasks(scenario, options.config, pair_plans, options.jobs, nullptr);
    for (size_t i = 0; i < pairs.size(); ++i) record(pairs[i].cell, pairs[i].plan, pair_results[i]);
    d2.pairs_run = static_cast<int64_t>(pairs.size());
    rep.depth2 = d2;
  }

  rep.cells = std::move(matrix);
  for (const std::string& inv : rep.invariants) {
    reports::InvariantResult ir;
    ir.id = inv;
    ir.statement = scenarios::InvariantStatement(inv);
    ir.checks = rep.runs;
    ir.violations = violated_runs.count(inv) > 0 ? violated_runs[inv] : 0;
    rep.invariant_results.push_back(std::move(ir));
  }
  for (const auto& [inv, n] : violated_runs) {
    if (std::find(rep.invariants.begin(), rep.invariants.end(), inv) != rep.invariants.end())
      continue;
    rep.invariant_results.push_back({inv, scenarios::InvariantStatement(inv), rep.runs, n});
  }
  return out;
}

reports::Report Explore(const std::vector<std::shared_ptr<const scenarios::Scenario>>& scenarios,
                        const ExploreOptions& options, const std::string& command) {
  reports::Report report;
  report.command = command;
  report.seed = options.config.seed;
  report.profile = options.config.profile == EngineProfile::MafCompat() ? "maf-compat" : "strict";
  report.hazards = options.config.profile.EnabledHazards();
  report.depth = options.depth;
  report.shard = std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count);
  for (const auto& s : scenarios) {
    ScenarioExploration e = ExploreScenario(*s, options);
    report.runs += e.report.runs;
    report.lives += e.report.lives;
    report.scenarios.push_back(std::move(e.report));
    for (auto& v : e.violations) report.violations.push_back(std::move(v));
  }
  reports::Canonicalize(&report);
  return report;
}

}  // namespace stepfault::properties
