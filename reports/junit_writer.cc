// junit.xml: the report as test cases a CI system counts (see report_writer.h).
//
// One <testsuite> per scenario with one <testcase> per window that has an applicable action: it
// fails when any of its cells was violated (the message names the first cell's action, invariant,
// plan and replay command; the text lists every violated cell), is <skipped/> when none of its
// cells ran (filtered, or beyond the depth / in another shard), and passes otherwise; its
// <system-out> lists each action's outcome. Then a "properties" suite and a "mutants" suite: a
// failed property and a surviving mutant are failures with the same message. An inconclusive
// report (an incomplete recording) adds a "run" suite whose one case is an <error> naming what
// was not seen; an interrupted one, a failing case. No time attributes:
// output is deterministic.
#include <fmt/format.h>

#include <map>
#include <string>
#include <tuple>

#include "reports/report_writer.h"
#include "reports/text_escape.h"

namespace stepfault::reports {
namespace {

std::string X(std::string_view s) { return XmlEscape(s); }

struct Suite {
  std::string name;
  std::string properties;  // a <properties> block, or ""
  std::string body;
  int64_t tests = 0, failures = 0, skipped = 0, errors = 0;
};

void AddCase(Suite* suite, std::string_view classname, std::string_view name,
             std::string_view inner) {
  suite->body += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", X(classname), X(name));
  suite->body += inner.empty() ? "/>\n" : fmt::format(">\n{}    </testcase>\n", inner);
  ++suite->tests;
}

std::string Failure(std::string_view type, std::string_view message, std::string_view detail) {
  return fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", type, X(message),
                     X(detail));
}

// The non-empty parts, one per line.
std::string Lines(std::initializer_list<std::string> parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (!p.empty()) out += (out.empty() ? "" : "\n") + p;
  }
  return out;
}

std::string FailureMessage(std::string_view invariant, std::string_view plan,
                           std::string_view replay) {
  return fmt::format("invariant {}; plan: {}; replay: {}", invariant.empty() ? "?" : invariant,
                     plan.empty() ? "(none)" : plan, replay.empty() ? "(none)" : replay);
}

// A scenario explored by schedules has no cells: one test case per invariant (a failure carries
// the first counterexample's fault, schedule and replay command), the figures as properties.
Suite ScheduleSuite(const ScenarioReport& s, const Report& r) {
  Suite suite{.name = "scenario." + s.name};
  const ScheduleCoverage& c = *s.schedules;
  suite.properties = fmt::format(
      "    <properties>\n"
      "      <property name=\"schedules_explored\" value=\"{}\"/>\n"
      "      <property name=\"schedules_budget\" value=\"{}\"/>\n"
      "      <property name=\"strategy\" value=\"{}\"/>\n"
      "      <property name=\"distinct_states\" value=\"{} (in the first {} schedules)\"/>\n"
      "      <property name=\"distinct_final_worlds\" value=\"{}\"/>\n"
      "      <property name=\"context_switches\" value=\"{}\"/>\n"
      "      <property name=\"faults_fired\" value=\"{}\"/>\n"
      "      <property name=\"windows\" value=\"{} distinct actor@point under interleaving\"/>\n"
      "    </properties>\n",
      c.explored, c.budget, X(c.strategy), c.distinct_states, c.states_counted_schedules,
      c.distinct_final_worlds, c.context_switches, c.faults_fired, c.windows);
  for (const InvariantResult& inv : s.invariant_results) {
    std::string inner;
    if (inv.violations > 0) {
      const Violation* v = nullptr;
      for (const Violation& x : r.violations) {
        if (v == nullptr && x.scenario == s.name && x.invariant == inv.id) v = &x;
      }
      inner = Failure("invariant-violation",
                      FailureMessage(inv.id, v ? v->plan : "", v ? v->replay : ""),
                      Lines({v ? v->message : "",
                             fmt::format("{} of {} schedules", inv.violations, inv.checks)}));
      ++suite.failures;
    }
    AddCase(&suite, "stepfault." + s.name, inv.id, inner);
  }
  return suite;
}

Suite ScenarioSuite(const ScenarioReport& s, const Report& r) {
  if (s.schedules) return ScheduleSuite(s, r);
  // The counterexample of a violated cell, for its plan and replay command.
  std::map<std::tuple<std::string, std::string>, const Violation*> cex;
  for (const Violation& v : r.violations) {
    if (v.scenario == s.name) cex.emplace(std::make_tuple(v.window, v.action), &v);
  }
  Suite suite{.name = "scenario." + s.name};
  const Coverage cov = ComputeCoverage(s);
  suite.properties = fmt::format(
      "    <properties>\n"
      "      <property name=\"windows_discovered\" value=\"{}\"/>\n"
      "      <property name=\"recovery_windows\" value=\"{}\"/>\n"
      "      <property name=\"cells_pct\" value=\"{}\"/>\n"
      "      <property name=\"crash_states\" value=\"{} total, {} distinct, {} explored, {} "
      "beyond the depth\"/>\n"
      "      <property name=\"determinism_checks\" value=\"{}\"/>\n"
      "      <property name=\"skipped\" value=\"{}\"/>\n"
      "{}"
      "    </properties>\n",
      cov.windows_total, cov.recovery_windows, FormatPct(cov.cells_pct), s.crash_states.total,
      s.crash_states.distinct, s.crash_states.explored, s.crash_states.beyond_depth,
      s.determinism_checks, X(s.skipped),
      r.fs_model.empty()
          ? ""
          : fmt::format("      <property name=\"fs_model\" value=\"{}\"/>\n", X(r.fs_model)));
  // One test case per window: its applicable cells are its actions. A CI page of one case per
  // (window, action) cell ran to tens of thousands of cases, a quarter of them skipped.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Cell*>> by_window;
  for (const Cell& c : s.cells) {
    if (c.outcome == CellOutcome::kNotApplicable) continue;
    auto [it, fresh] = by_window.try_emplace(c.window);
    if (fresh) order.push_back(c.window);
    it->second.push_back(&c);
  }
  const std::string not_run =
      r.shard.empty() || r.shard == "1/1"
          ? "not run: beyond the depth (--depth " + std::to_string(r.depth) + ")"
          : "not run: in another shard, or beyond the depth";
  for (const std::string& window : order) {
    const std::vector<const Cell*>& cells = by_window[window];
    std::string actions, failures, first_message;
    bool ran = false, all_filtered = true;
    for (const Cell* c : cells) {
      ran = ran || CellRan(c->outcome);
      all_filtered = all_filtered && c->outcome == CellOutcome::kFiltered;
      std::string outcome(CellOutcomeName(c->outcome));
      if (c->outcome == CellOutcome::kViolation) {
        auto it = cex.find({c->window, c->action});
        const Violation* v = it == cex.end() ? nullptr : it->second;
        std::string invariants;
        for (const std::string& inv : c->invariants_violated)
          invariants += (invariants.empty() ? "" : ",") + inv;
        if (invariants.empty() && v != nullptr) invariants = v->invariant;
        outcome += " (" + invariants + ")";
        const std::string line =
            c->action + ": " + FailureMessage(invariants, v ? v->plan : "", v ? v->replay : "");
        if (first_message.empty()) first_message = line;
        failures += Lines({line, v ? Lines({v->message, fmt::format("seed: {}", v->seed),
                                            v->rapidcheck_reproduce,
                                            v->holds_under.empty()
                                                ? ""
                                                : "holds under: " + HoldsUnderText(v->holds_under)})
                                   : ""}) +
                    "\n";
      } else if (CellRan(c->outcome)) {
        outcome += fmt::format(" ({} runs)", c->runs);
      }
      actions += c->action + ": " + outcome + "\n";
    }
    std::string inner;
    if (!failures.empty()) {
      inner = Failure("invariant-violation", first_message, failures);
      ++suite.failures;
    } else if (!ran) {
      inner = fmt::format("      <skipped message=\"{}\"/>\n",
                          all_filtered ? "filtered: left out by --actions" : X(not_run));
      ++suite.skipped;
    }
    inner += "      <system-out>" + X(actions) + "</system-out>\n";
    AddCase(&suite, "stepfault." + s.name, window, inner);
  }
  return suite;
}

// One case per mutant: a failure when it survived or its hunt's harness failed.
Suite MutantSuite(const Report& r) {
  Suite suite{.name = "mutants"};
  for (const MutantResult& m : r.mutants) {
    std::string inner;
    if (m.verdict == "harness-failed") {
      inner = Failure("mutant-harness-failed",
                      fmt::format("mutant {}: the harness failed: {}", m.name, m.message),
                      m.description);
      ++suite.failures;
    } else if (!m.killed) {
      inner =
          Failure("mutant-survived",
                  fmt::format("mutant {} survived: no invariant caught it", m.name), m.description);
      ++suite.failures;
    }
    AddCase(&suite, "stepfault.mutants." + m.scenario, m.name, inner);
  }
  return suite;
}

}  // namespace

std::string JunitReportWriter::Render(const Report& r) {
  std::vector<Suite> suites;
  for (const ScenarioReport& s : r.scenarios) suites.push_back(ScenarioSuite(s, r));
  if (!r.properties.empty()) {
    Suite suite{.name = "properties"};
    for (const PropertyResult& p : r.properties) {
      std::string inner;
      if (!p.passed) {
        inner = Failure("invariant-violation", FailureMessage(p.invariant, p.plan, p.replay),
                        Lines({p.message, p.rapidcheck_reproduce}));
        ++suite.failures;
      }
      AddCase(&suite, "stepfault.properties." + p.scenario, p.name, inner);
    }
    suites.push_back(std::move(suite));
  }
  if (!r.mutants.empty()) suites.push_back(MutantSuite(r));
  // A partial report fails CI whatever ran: one failing case says so.
  if (!r.interrupted.empty()) {
    Suite suite{.name = "run"};
    AddCase(&suite, "stepfault.run", "complete",
            Failure("interrupted", "the run was interrupted by " + r.interrupted,
                    "the report is partial: cells not reached are not run, variants not reached "
                    "are not explored"));
    ++suite.failures;
    suites.push_back(std::move(suite));
  }
  // An incomplete recording is neither a pass nor a failure: one case in error says what was not
  // seen (CI shows it as an error, never green).
  if (!r.inconclusive.empty()) {
    Suite suite{.name = "run"};
    std::string reasons;
    for (const std::string& why : r.inconclusive) reasons += (reasons.empty() ? "" : "\n") + why;
    AddCase(&suite, "stepfault.run", "recording-complete",
            fmt::format("      <error type=\"inconclusive\" message=\"{}\">{}</error>\n",
                        X("INCONCLUSIVE: the recording is incomplete: " + r.inconclusive[0]),
                        X(reasons)));
    ++suite.errors;
    suites.push_back(std::move(suite));
  }
  int64_t tests = 0, failures = 0, skipped = 0, errors = 0;
  for (const Suite& s : suites) {
    tests += s.tests;
    failures += s.failures;
    skipped += s.skipped;
    errors += s.errors;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"stepfault {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "skipped=\"{}\">\n",
      X(r.command), tests, failures, errors, skipped);
  for (const Suite& s : suites) {
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
        X(s.name), s.tests, s.failures, s.errors, s.skipped);
    out += s.properties + s.body + "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

}  // namespace stepfault::reports
