// Outcome names, coverage and verdict of a Report (see report_model.h).
#include "reports/report_model.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace stepfault::reports {

std::string_view CellOutcomeName(CellOutcome outcome) {
  switch (outcome) {
    case CellOutcome::kPass:
      return "pass";
    case CellOutcome::kViolation:
      return "violation";
    case CellOutcome::kNotApplicable:
      return "n/a";
    case CellOutcome::kNotRun:
      return "not-run";
    case CellOutcome::kFiltered:
      return "filtered";
  }
  return "not-run";
}

std::optional<CellOutcome> ParseCellOutcome(std::string_view name) {
  for (CellOutcome o : {CellOutcome::kPass, CellOutcome::kViolation, CellOutcome::kNotApplicable,
                        CellOutcome::kNotRun, CellOutcome::kFiltered}) {
    if (CellOutcomeName(o) == name) return o;
  }
  return std::nullopt;
}

bool operator==(const BenchResult& a, const BenchResult& b) {
  auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  return a.name == b.name && a.family == b.family && same(a.median_ns, b.median_ns) &&
         same(a.ratio, b.ratio) && a.labels == b.labels;
}

namespace {

void Accumulate(const ScenarioReport& scenario, Coverage* c, std::set<std::string>* points,
                std::set<std::string>* actions) {
  std::set<std::string> exercised;
  for (const Cell& cell : scenario.cells) {
    if (cell.outcome == CellOutcome::kNotApplicable) continue;
    ++c->cells_total;
    c->cells_filtered += cell.outcome == CellOutcome::kFiltered ? 1 : 0;
    c->cells_not_run += cell.outcome == CellOutcome::kNotRun ? 1 : 0;
    if (CellRan(cell.outcome)) {
      ++c->cells_exercised;
      exercised.insert(cell.window);
      actions->insert(cell.action);
    }
  }
  c->windows_total += static_cast<int64_t>(scenario.windows.size());
  for (const Window& w : scenario.windows) {
    c->windows_exercised += exercised.count(w.id);
    c->recovery_windows += w.recovery ? 1 : 0;
  }
  c->crash_states.total += scenario.crash_states.total;
  c->crash_states.distinct += scenario.crash_states.distinct;
  c->crash_states.explored += scenario.crash_states.explored;
  c->crash_states.beyond_depth += scenario.crash_states.beyond_depth;
  c->determinism_checks += scenario.determinism_checks;
  points->insert(scenario.points_reached.begin(), scenario.points_reached.end());
}

void FinishPct(Coverage* c) {
  c->cells_pct = c->cells_total == 0 ? 0.0
                                     : 100.0 * static_cast<double>(c->cells_exercised) /
                                           static_cast<double>(c->cells_total);
}

}  // namespace

Coverage ComputeCoverage(const ScenarioReport& scenario) {
  Coverage c;
  std::set<std::string> points, actions;
  Accumulate(scenario, &c, &points, &actions);
  c.points_reached.assign(points.begin(), points.end());
  c.actions_run.assign(actions.begin(), actions.end());
  FinishPct(&c);
  return c;
}

Coverage ComputeCoverage(const Report& report) {
  Coverage c;
  std::set<std::string> points, actions;
  for (const ScenarioReport& s : report.scenarios) Accumulate(s, &c, &points, &actions);
  c.points_reached.assign(points.begin(), points.end());
  for (const std::string& p : report.points_registered) {
    if (!points.count(p)) c.points_unreached.push_back(p);
  }
  c.actions_run.assign(actions.begin(), actions.end());
  FinishPct(&c);
  return c;
}

namespace {

// The kind of window a violation struck at (see ViolationGroup).
std::string KindOf(const Violation& v,
                   const std::map<std::string, const ScenarioReport*>& by_name) {
  if (!v.failure.empty()) return v.failure;
  auto s = by_name.find(v.scenario);
  if (s != by_name.end()) {
    for (const Window& w : s->second->windows) {
      if (w.id == v.window && !w.business_window.empty()) return w.business_window;
    }
  }
  // No business label: the life's command ("resume"), so a scenario that labels few windows still
  // folds into a handful of groups; a window id without a command keeps its point.
  const size_t colon = v.window.find(':');
  if (colon != std::string::npos) return v.window.substr(0, colon) + " (unlabelled windows)";
  const size_t hash = v.window.rfind('#');
  return hash == std::string::npos ? v.window : v.window.substr(0, hash);
}

}  // namespace

bool SmallerPlan(const std::string& a, const std::string& b) {
  const auto faults_in = [](const std::string& p) { return std::count(p.begin(), p.end(), '@'); };
  const auto fa = faults_in(a);
  const auto fb = faults_in(b);
  return fa != fb ? fa < fb : a.size() < b.size();
}

std::vector<ViolationGroup> GroupViolations(const Report& report) {
  std::map<std::string, const ScenarioReport*> by_name;
  std::map<std::string, size_t> order;
  for (const ScenarioReport& s : report.scenarios) {
    by_name[s.name] = &s;
    order.emplace(s.name, order.size());
  }
  std::map<std::tuple<size_t, std::string, std::string, std::string>, ViolationGroup> groups;
  for (const Violation& v : report.violations) {
    auto o = order.find(v.scenario);
    const std::string kind = KindOf(v, by_name);
    ViolationGroup& g =
        groups[{o == order.end() ? order.size() : o->second, v.scenario, v.invariant, kind}];
    g.scenario = v.scenario;
    g.invariant = v.invariant;
    g.kind = kind;
    ++g.count;
    if (g.smallest == nullptr || SmallerPlan(v.plan, g.smallest->plan)) g.smallest = &v;
  }
  std::vector<ViolationGroup> out;
  for (auto& [key, g] : groups) out.push_back(g);
  return out;
}

VerdictTable ComputeVerdictTable(const Report& report) {
  VerdictTable t;
  auto column = [&](const std::string& inv) {
    auto it = std::find(t.invariants.begin(), t.invariants.end(), inv);
    if (it != t.invariants.end()) return static_cast<size_t>(it - t.invariants.begin());
    t.invariants.push_back(inv);
    return t.invariants.size() - 1;
  };
  for (const ScenarioReport& s : report.scenarios) {
    for (const InvariantResult& r : s.invariant_results) column(r.id);
  }
  for (const ScenarioReport& s : report.scenarios) {
    if (!s.skipped.empty()) continue;
    t.scenarios.push_back(s.name);
    std::vector<VerdictCell> row(t.invariants.size());
    for (const InvariantResult& r : s.invariant_results)
      row[column(r.id)] = {r.checks, r.violations};
    t.cells.push_back(std::move(row));
  }
  return t;
}

Verdict ComputeVerdict(const Report& report) {
  if (!report.inconclusive.empty()) return Verdict::kInconclusive;
  bool violated = !report.violations.empty();
  for (const ScenarioReport& s : report.scenarios) {
    for (const Cell& cell : s.cells) violated |= cell.outcome == CellOutcome::kViolation;
  }
  for (const PropertyResult& p : report.properties) violated |= !p.passed;
  for (const MutantResult& m : report.mutants) violated |= !m.killed;
  if (violated) return Verdict::kViolation;
  if (!report.interrupted.empty()) return Verdict::kInterrupted;
  if (report.min_coverage_pct > 0 && ComputeCoverage(report).cells_pct < report.min_coverage_pct) {
    return Verdict::kCoverageBelowMinimum;
  }
  return Verdict::kPass;
}

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kViolation:
      return "violation";
    case Verdict::kCoverageBelowMinimum:
      return "coverage-below-minimum";
    case Verdict::kInterrupted:
      return "interrupted";
    case Verdict::kInconclusive:
      return "inconclusive";
  }
  return "violation";
}

int VerdictExitCode(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return 0;
    case Verdict::kViolation:
      return 1;
    case Verdict::kCoverageBelowMinimum:
      return 3;
    case Verdict::kInterrupted:
      return 130;  // kExitInterrupted in scenarios/exit_codes.h
    case Verdict::kInconclusive:
      return 5;  // kExitInconclusive
  }
  return 1;
}

std::string ReportTitle(const Report& report) {
  if (report.command.starts_with("stepfault ")) return report.command;
  return "Stepfault " + report.command;
}

std::string HoldsUnderText(const std::vector<std::string>& holds_under) {
  if (holds_under.size() == 1 && holds_under[0] == "posix") return "posix only";
  std::string out;
  for (const std::string& m : holds_under) out += (out.empty() ? "" : ", ") + m;
  return out;
}

}  // namespace stepfault::reports
