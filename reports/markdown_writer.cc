// summary.md: the verdict a CI job summary shows (see report_writer.h).
//
// Short by design (at most ~60 lines): long lists are cut with "... N more" and the full detail is
// in report.html. Text from the model is escaped for Markdown tables and code spans.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "reports/report_writer.h"
#include "reports/text_escape.h"

namespace stepfault::reports {
namespace {

constexpr size_t kMaxScenarioRows = 12;
constexpr size_t kMaxViolations = 8;
constexpr size_t kMaxListed = 6;  // failed properties, survived mutants

std::string More(size_t total, size_t shown) {
  return total > shown ? fmt::format("- ... {} more (see report.html)\n", total - shown) : "";
}

}  // namespace

std::string MarkdownReportWriter::Render(const Report& r) {
  Verdict verdict = ComputeVerdict(r);
  Coverage cov = ComputeCoverage(r);
  std::string head = verdict == Verdict::kPass        ? "PASS"
                     : verdict == Verdict::kViolation ? "VIOLATION"
                                                      : "COVERAGE BELOW MINIMUM";
  std::string out = fmt::format("## Stepfault {}: **{}** (exit {})\n\n", MarkdownText(r.command),
                                head, VerdictExitCode(verdict));
  out += fmt::format(
      "Coverage: cells {}/{} ({}%, minimum {}%), windows {}/{}; runs {}, lives {}; "
      "seed {}, profile {}, depth {}, shard {}.\n",
      cov.cells_exercised, cov.cells_total, FormatPct(cov.cells_pct), FormatPct(r.min_coverage_pct),
      cov.windows_exercised, cov.windows_total, r.runs, r.lives, r.seed, MarkdownCode(r.profile),
      r.depth, MarkdownText(r.shard));
  if (!r.scenarios.empty()) {
    out += "\n| scenario | windows | cells | violations |\n|---|---|---|---|\n";
    for (size_t i = 0; i < std::min(r.scenarios.size(), kMaxScenarioRows); ++i) {
      const ScenarioReport& s = r.scenarios[i];
      Coverage c = ComputeCoverage(s);
      int64_t bad = std::count_if(s.cells.begin(), s.cells.end(), [](const Cell& cell) {
        return cell.outcome == CellOutcome::kViolation;
      });
      out += fmt::format("| {} | {}/{} | {}/{} ({}%) | {} |\n", MarkdownCode(s.name),
                         c.windows_exercised, c.windows_total, c.cells_exercised, c.cells_total,
                         FormatPct(c.cells_pct), bad);
    }
    if (r.scenarios.size() > kMaxScenarioRows) {
      out += fmt::format("| ... {} more | | | |\n", r.scenarios.size() - kMaxScenarioRows);
    }
  }
  if (!r.violations.empty()) {
    out += fmt::format("\n### Violations ({})\n\n", r.violations.size());
    for (size_t i = 0; i < std::min(r.violations.size(), kMaxViolations); ++i) {
      const Violation& v = r.violations[i];
      out += fmt::format("- {} {} at {} x {}: replay {}\n", MarkdownCode(v.scenario),
                         MarkdownCode(v.invariant), MarkdownCode(v.window), MarkdownCode(v.action),
                         MarkdownCode(v.replay));
    }
    out += More(r.violations.size(), kMaxViolations);
  }
  if (!r.properties.empty()) {
    std::vector<const PropertyResult*> failed;
    for (const PropertyResult& p : r.properties) {
      if (!p.passed) failed.push_back(&p);
    }
    out += fmt::format("\nProperties: {}/{} passed.\n", r.properties.size() - failed.size(),
                       r.properties.size());
    for (size_t i = 0; i < std::min(failed.size(), kMaxListed); ++i) {
      out += fmt::format("- FAILED {} ({}): replay {}\n", MarkdownCode(failed[i]->name),
                         MarkdownCode(failed[i]->invariant), MarkdownCode(failed[i]->replay));
    }
    out += More(failed.size(), kMaxListed);
  }
  if (!r.mutants.empty()) {
    std::vector<const MutantResult*> survived;
    for (const MutantResult& m : r.mutants) {
      if (!m.killed) survived.push_back(&m);
    }
    out += fmt::format("\nMutants: {}/{} killed.\n", r.mutants.size() - survived.size(),
                       r.mutants.size());
    for (size_t i = 0; i < std::min(survived.size(), kMaxListed); ++i) {
      out += fmt::format("- SURVIVED {} ({})\n", MarkdownCode(survived[i]->name),
                         MarkdownCode(survived[i]->scenario));
    }
    out += More(survived.size(), kMaxListed);
  }
  if (!r.bench.empty())
    out += fmt::format("\nBenchmarks: {} results (charts in report.html).\n", r.bench.size());
  return out;
}

}  // namespace stepfault::reports
