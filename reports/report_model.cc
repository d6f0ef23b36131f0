// Outcome names, coverage and verdict of a Report (see report_model.h).
#include "reports/report_model.h"

#include <cmath>
#include <set>

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
  }
  return "not-run";
}

std::optional<CellOutcome> ParseCellOutcome(std::string_view name) {
  for (CellOutcome o : {CellOutcome::kPass, CellOutcome::kViolation, CellOutcome::kNotApplicable,
                        CellOutcome::kNotRun}) {
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

void Accumulate(const ScenarioReport& scenario, Coverage* c) {
  std::set<std::string> exercised;
  for (const Cell& cell : scenario.cells) {
    if (cell.outcome == CellOutcome::kNotApplicable) continue;
    ++c->cells_total;
    if (CellRan(cell.outcome)) {
      ++c->cells_exercised;
      exercised.insert(cell.window);
    }
  }
  c->windows_total += static_cast<int64_t>(scenario.windows.size());
  for (const Window& w : scenario.windows) c->windows_exercised += exercised.count(w.id);
}

void FinishPct(Coverage* c) {
  c->cells_pct = c->cells_total == 0 ? 0.0
                                     : 100.0 * static_cast<double>(c->cells_exercised) /
                                           static_cast<double>(c->cells_total);
}

}  // namespace

Coverage ComputeCoverage(const ScenarioReport& scenario) {
  Coverage c;
  Accumulate(scenario, &c);
  FinishPct(&c);
  return c;
}

Coverage ComputeCoverage(const Report& report) {
  Coverage c;
  for (const ScenarioReport& s : report.scenarios) Accumulate(s, &c);
  FinishPct(&c);
  return c;
}

Verdict ComputeVerdict(const Report& report) {
  bool violated = !report.violations.empty();
  for (const ScenarioReport& s : report.scenarios) {
    for (const Cell& cell : s.cells) violated |= cell.outcome == CellOutcome::kViolation;
  }
  for (const PropertyResult& p : report.properties) violated |= !p.passed;
  for (const MutantResult& m : report.mutants) violated |= !m.killed;
  if (violated) return Verdict::kViolation;
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
  }
  return 1;
}

}  // namespace stepfault::reports
