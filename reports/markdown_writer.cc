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

// The scenario x invariant table and the mutant score.
std::string VerdictTableMarkdown(const Report& r) {
  std::string out;
  const VerdictTable t = ComputeVerdictTable(r);
  if (!t.scenarios.empty()) {
    out += "\n| scenario |";
    std::string rule = "|---|";
    for (const std::string& inv : t.invariants) {
      out += " " + MarkdownText(inv) + " |";
      rule += "---|";
    }
    out += "\n" + rule + "\n";
    for (size_t i = 0; i < std::min(t.scenarios.size(), kMaxScenarioRows); ++i) {
      out += "| " + MarkdownCode(t.scenarios[i]) + " |";
      for (const VerdictCell& c : t.cells[i]) {
        out += c.checks < 0       ? std::string(" - |")
               : c.violations > 0 ? fmt::format(" **violated {}** |", c.violations)
                                  : fmt::format(" held {} |", c.checks);
      }
      out += "\n";
    }
    if (t.scenarios.size() > kMaxScenarioRows)
      out += fmt::format("\n... {} more scenarios in report.html\n",
                         t.scenarios.size() - kMaxScenarioRows);
  }
  return out;  // the mutant score is said once, with the survivors (Render)
}

// The mutants' line and the survivors (and harness failures) under it.
std::string MutantLines(const Report& r) {
  std::string out;
  std::vector<const MutantResult*> survived;
  for (const MutantResult& m : r.mutants) {
    if (!m.killed) survived.push_back(&m);
  }
  out += fmt::format("\nMutants: {}/{} killed.\n", r.mutants.size() - survived.size(),
                     r.mutants.size());
  for (size_t i = 0; i < std::min(survived.size(), kMaxListed); ++i) {
    const MutantResult& m = *survived[i];
    out +=
        m.verdict == "harness-failed"
            ? fmt::format("- HARNESS FAILED {}: {}\n", MarkdownCode(m.name),
                          MarkdownText(m.message))
            : fmt::format("- SURVIVED {} ({})\n", MarkdownCode(m.name), MarkdownCode(m.scenario));
  }
  out += More(survived.size(), kMaxListed);
  const int64_t by_another = std::count_if(r.mutants.begin(), r.mutants.end(), [](const auto& m) {
    return m.verdict == "killed-by-another";
  });
  if (by_another > 0)
    out += fmt::format("{} killed by an invariant other than the expected one.\n", by_another);
  return out;
}

}  // namespace

std::string MarkdownReportWriter::Render(const Report& r) {
  Verdict verdict = ComputeVerdict(r);
  Coverage cov = ComputeCoverage(r);
  std::string head = verdict == Verdict::kPass        ? "PASS"
                     : verdict == Verdict::kViolation ? "VIOLATION"
                     : verdict == Verdict::kInterrupted
                         ? "PARTIAL (interrupted by " + MarkdownText(r.interrupted) + ")"
                     : verdict == Verdict::kInconclusive
                         ? "INCONCLUSIVE (the recording is incomplete: nothing was explored)"
                         : "COVERAGE BELOW MINIMUM";
  std::string out = fmt::format("## {}: **{}** (exit {})\n\n", MarkdownText(ReportTitle(r)), head,
                                VerdictExitCode(verdict));
  // What the recording did not see comes first: no figure below is a verdict.
  if (!r.inconclusive.empty()) {
    out += "What was not seen (neither a pass nor a violation can be said):\n\n";
    for (const std::string& why : r.inconclusive) out += "- " + MarkdownText(why) + "\n";
    out += "\n";
  }
  // A report without scenarios (a mutant hunt, a benchmark) has no cells: no "0/0 cells" line.
  if (r.scenarios.empty()) {
    out += fmt::format("No cells: this report holds {}; seed {}, profile {}.\n",
                       !r.mutants.empty() ? "a mutant hunt"
                       : !r.bench.empty() ? "benchmarks"
                                          : "no exploration",
                       r.seed, MarkdownCode(r.profile));
  } else {
    out += fmt::format(
        "Coverage: cells {}/{} ({}%, minimum {}%) of discovered windows x applicable actions "
        "({} filtered, {} not run); windows {} discovered ({} recovery); crash states {} ({} "
        "distinct, {} explored, {} beyond the depth); fault points {}/{} reached; runs {}, lives "
        "{}; seed {}, profile {}, depth {}, shard {}.\n",
        cov.cells_exercised, cov.cells_total, FormatPct(cov.cells_pct),
        FormatPct(r.min_coverage_pct), cov.cells_filtered, cov.cells_not_run, cov.windows_total,
        cov.recovery_windows, cov.crash_states.total, cov.crash_states.distinct,
        cov.crash_states.explored, cov.crash_states.beyond_depth, cov.points_reached.size(),
        r.points_registered.size(), r.runs, r.lives, r.seed, MarkdownCode(r.profile), r.depth,
        MarkdownText(r.shard));
  }
  if (!r.fs_model.empty())
    out += fmt::format("Persistence model: {} (docs/blackbox.md).\n", MarkdownCode(r.fs_model));
  for (const ScenarioReport& s : r.scenarios) {
    if (!s.schedules) continue;
    const ScheduleCoverage& c = *s.schedules;
    out += fmt::format(
        "\nSchedules ({}, several actors, no cells): {} of {} explored ({}{}), {} distinct states "
        "(in the first {}), "
        "{} distinct final worlds, {} context switches, {} faults fired, {} windows (distinct "
        "actor@point) covered under interleaving.\n",
        MarkdownCode(s.name), c.explored, c.budget, MarkdownText(c.strategy),
        c.pct_depth > 0 ? fmt::format(" depth {}", c.pct_depth) : "", c.distinct_states,
        c.states_counted_schedules, c.distinct_final_worlds, c.context_switches, c.faults_fired,
        c.windows);
  }
  out += VerdictTableMarkdown(r);
  if (!r.violations.empty()) {
    const std::vector<ViolationGroup> groups = GroupViolations(r);
    out +=
        fmt::format("\n### Violations ({} in {} groups)\n\n", r.violations.size(), groups.size());
    for (size_t i = 0; i < std::min(groups.size(), kMaxViolations); ++i) {
      const ViolationGroup& g = groups[i];
      out += fmt::format(
          "- {} {} {} {} ({}x): replay {}{}\n", MarkdownCode(g.scenario), MarkdownCode(g.invariant),
          g.smallest->failure.empty() ? "at" : "failing:", MarkdownText(g.kind), g.count,
          MarkdownCode(g.smallest->replay),
          g.smallest->holds_under.empty()
              ? ""
              : "; holds under: " + MarkdownText(HoldsUnderText(g.smallest->holds_under)));
    }
    out += More(groups.size(), kMaxViolations);
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
  if (!r.mutants.empty()) out += MutantLines(r);
  if (!r.bench.empty())
    out += fmt::format("\nBenchmarks: {} results (charts in report.html).\n", r.bench.size());
  return out;
}

}  // namespace stepfault::reports
