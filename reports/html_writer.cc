// report.html: the page an engineer opens first (see report_writer.h).
//
// Rendered entirely here, server-side: inline CSS, inline SVG charts, no script, no link, no
// external URL or web font, so the file can be attached to a CI run and opened offline. Every
// piece of text from the model goes through HtmlEscape. The coverage matrix is a table with
// class "matrix": a cell whose action applies carries data-outcome (pass, violation, not-run,
// filtered), so tests and scripts can count them; one whose action does not apply is an empty
// <td>. Cell end tags are left out (HTML allows it) to keep a large report small.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "reports/report_writer.h"
#include "reports/text_escape.h"

namespace stepfault::reports {
namespace {

constexpr std::string_view kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#1b1f24;max-width:1200px}
h1{margin:0 0 .2em 0}h2{margin-top:1.6em;border-bottom:1px solid #ccd;padding-bottom:.2em}
header.verdict{padding:.8em 1em;border-radius:6px;border:2px solid}
.v-pass{background:#e6f6ea;border-color:#2e8b47}.v-violation{background:#fde8e8;border-color:#c62828}
.v-coverage-below-minimum,.v-interrupted,.v-inconclusive{background:#fff4de;border-color:#c77c00}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:.5em 0 0 0}
dl.meta dt{font-weight:600}dl.meta dd{margin:0}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #bbc;padding:.25em .5em;text-align:left;vertical-align:top}
table.matrix td{text-align:center;min-width:3.5em;font-variant-numeric:tabular-nums}
table.matrix tbody th code{font-size:.9em}pre.rows{font-size:.85em;line-height:1.25}pre.rows b{font-weight:400;color:#555}th.bw{color:#555;font-size:.85em;font-weight:400;background:#f3f3f6}
td.o-na,table.matrix td{background:#d0d0d0;color:#666}
table.matrix td:not([data-outcome])::after{content:"\2013"}
table.matrix td[data-outcome~=pass]{background:#9fdcaa;color:inherit}
table.matrix td[data-outcome~=violation]{background:#e57373;color:#fff;font-weight:700}
table.matrix td[data-outcome~=not-run]{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#eee 4px,#eee 8px)}
table.matrix td[data-outcome~=filtered]{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#e6e0f0 4px,#e6e0f0 8px)}
details.scenario>summary{cursor:pointer;font-size:1.25em;font-weight:600;margin-top:1.2em;border-bottom:1px solid #ccd;padding-bottom:.2em}
.legend span{display:inline-block;padding:.1em .6em;margin-right:.4em;border:1px solid #bbc}
code{background:#f3f3f6;padding:.05em .3em;border-radius:3px;overflow-wrap:break-word}
.cex{border-left:4px solid #c62828;padding:.3em .8em;margin:.8em 0;background:#fff8f8}
.bad{color:#c62828;font-weight:700}.good{color:#2e8b47;font-weight:700}
svg text{font-size:12px;font-family:inherit}
)css";

std::string H(std::string_view s) { return HtmlEscape(s); }

// The one-line summary of a scenario explored by schedules (see ScheduleCoverage).
std::string ScheduleLine(const ScenarioReport& s) {
  const ScheduleCoverage& c = *s.schedules;
  return fmt::format(
      "<code>{}</code> (several actors, explored by schedules, no cells): {} of {} schedules "
      "explored ({}{}), {} distinct states (in the first {}), {} distinct final worlds, {} "
      "scheduling points, {} "
      "context switches, {} faults fired, {} windows (distinct actor@point) covered under "
      "interleaving",
      H(s.name), c.explored, c.budget, H(c.strategy),
      c.pct_depth > 0 ? fmt::format(" depth {}", c.pct_depth) : "", c.distinct_states,
      c.states_counted_schedules, c.distinct_final_worlds, c.scheduling_points, c.context_switches,
      c.faults_fired, c.windows);
}

// The windows of a schedule exploration, one row per actor.
std::string ScheduleWindows(const ScheduleCoverage& c) {
  std::map<std::string, std::string> by_actor;
  for (const std::string& w : c.window_names) {
    const size_t at = w.find('@');
    std::string& row = by_actor[w.substr(0, at)];
    row += (row.empty() ? "" : " ") +
           ("<code>" + H(at == std::string::npos ? w : w.substr(at + 1)) + "</code>");
  }
  std::string out =
      "<table class=\"schedule-windows\">\n<thead><tr><th>actor</th><th>points reached under "
      "interleaving</th></tr></thead>\n<tbody>\n";
  for (const auto& [actor, row] : by_actor)
    out +=
        fmt::format("<tr><th scope=\"row\"><code>{}</code></th><td>{}</td></tr>\n", H(actor), row);
  return out + "</tbody>\n</table>\n";
}

std::string Headline(const Report& r) {
  Verdict verdict = ComputeVerdict(r);
  Coverage cov = ComputeCoverage(r);
  std::string title = verdict == Verdict::kPass        ? "PASS: every invariant held"
                      : verdict == Verdict::kViolation ? "VIOLATION: an invariant was broken"
                      : verdict == Verdict::kInterrupted
                          ? "PARTIAL: interrupted by " + H(r.interrupted) + "; what ran is below"
                      : verdict == Verdict::kInconclusive
                          ? "INCONCLUSIVE: the recording is incomplete; nothing was explored"
                          : "COVERAGE BELOW MINIMUM";
  std::string out = fmt::format("<header class=\"verdict v-{}\" id=\"verdict\">\n<h1>{}</h1>\n",
                                VerdictName(verdict), title);
  if (!r.inconclusive.empty()) {
    out += "<p>What was not seen:</p>\n<ul class=\"inconclusive\">\n";
    for (const std::string& why : r.inconclusive) out += "<li>" + H(why) + "</li>\n";
    out += "</ul>\n";
  }
  if (r.scenarios.empty()) {
    out += fmt::format("<p class=\"coverage\">No cells: this report holds {}.</p>\n",
                       !r.mutants.empty() ? "a mutant hunt"
                       : !r.bench.empty() ? "benchmarks"
                                          : "no exploration");
  } else {
    out += fmt::format(
        "<p class=\"coverage\">Coverage: cells {}/{} ({}%) of discovered windows x applicable "
        "actions ({} filtered, {} not run); windows {} discovered ({} recovery), {} exercised; "
        "crash states {} ({} distinct, {} explored, {} beyond the depth); runs {}, lives {}; "
        "determinism checks {}; violations {}</p>\n",
        cov.cells_exercised, cov.cells_total, FormatPct(cov.cells_pct), cov.cells_filtered,
        cov.cells_not_run, cov.windows_total, cov.recovery_windows, cov.windows_exercised,
        cov.crash_states.total, cov.crash_states.distinct, cov.crash_states.explored,
        cov.crash_states.beyond_depth, r.runs, r.lives, cov.determinism_checks,
        r.violations.size());
  }
  for (const ScenarioReport& s : r.scenarios) {
    if (s.schedules) out += "<p class=\"schedules\">" + ScheduleLine(s) + "</p>\n";
  }
  std::string hazards;
  for (const std::string& h : r.hazards) hazards += (hazards.empty() ? "" : ", ") + H(h);
  out += "<dl class=\"meta\">\n";
  out +=
      fmt::format("<dt>command</dt><dd>{}</dd>\n<dt>seed</dt><dd>{}</dd>\n", H(r.command), r.seed);
  out += fmt::format("<dt>profile</dt><dd>{}</dd>\n<dt>hazards</dt><dd>{}</dd>\n", H(r.profile),
                     hazards.empty() ? "none" : hazards);
  if (!r.fs_model.empty())
    out += fmt::format("<dt>persistence model</dt><dd>{}</dd>\n", H(r.fs_model));
  out += fmt::format("<dt>depth</dt><dd>{}</dd>\n<dt>shard</dt><dd>{}</dd>\n", r.depth, H(r.shard));
  out += fmt::format("<dt>minimum coverage</dt><dd>{}%</dd>\n", FormatPct(r.min_coverage_pct));
  out += fmt::format("<dt>schema version</dt><dd>{}</dd>\n</dl>\n</header>\n", r.schema_version);
  return out;
}

// The business window of the rows below, as a row of its own where it changes.
std::string LabelRow(const Window& w, size_t columns, std::string* label) {
  if (w.business_window == *label) return "";
  *label = w.business_window;
  return fmt::format("<tr><th colspan=\"{}\" class=\"bw\">{}</th></tr>\n", columns,
                     label->empty() ? "(no business window)" : H(*label));
}

std::string Matrix(const ScenarioReport& s) {
  std::map<std::pair<std::string, std::string>, const Cell*> by_key;
  for (const Cell& c : s.cells) by_key[{c.window, c.action}] = &c;
  std::string out = "<table class=\"matrix\">\n<thead><tr><th>window</th>";
  for (const std::string& a : s.actions) out += fmt::format("<th scope=\"col\">{}</th>", H(a));
  out += "</tr></thead>\n<tbody>\n";
  std::string label;
  for (const Window& w : s.windows) {
    out += LabelRow(w, s.actions.size() + 1, &label);
    out += fmt::format("<tr><th><code>{}</code>", H(w.id));
    for (const std::string& a : s.actions) {
      auto it = by_key.find({w.id, a});
      if (it == by_key.end()) {
        out += "<td class=\"missing\" title=\"no cell in the report\"></td>";
        continue;
      }
      // Compact, so a report of 200,000 cells stays a page that opens at once (end tags of
      // cells are optional in HTML): a cell whose action does not apply is an empty <td>; the
      // others carry the outcome as the attribute the style and scripts read and the run count
      // as their text; only a violation has a tooltip (runs, lives, invariants). The rest is in
      // report.json.
      const Cell& c = *it->second;
      if (c.outcome == CellOutcome::kNotApplicable) {
        out += "<td>";
      } else if (c.outcome != CellOutcome::kViolation) {
        out += fmt::format("<td data-outcome=\"{}\">{}", CellOutcomeName(c.outcome),
                           CellRan(c.outcome) ? std::to_string(c.runs) : "");
      } else {
        std::string tip = fmt::format("{} x {}: {}, {} runs, at most {} lives", w.id, a,
                                      CellOutcomeName(c.outcome), c.runs, c.lives_max);
        for (const std::string& inv : c.invariants_violated) tip += "; violated " + inv;
        out += fmt::format("<td data-outcome=\"{}\" title=\"{}\">{}", CellOutcomeName(c.outcome),
                           H(tip), c.runs);
      }
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

// The matrix of a variant without a violation, as text: a line per window (its id padded to one
// width), a character per action, and the business window on a line of its own where it changes.
// One text block per variant, where a table cell per window x action made a report of 46 variants
// take seconds to open. Counts per cell are in report.json.
std::string CompactMatrix(const ScenarioReport& s) {
  std::map<std::pair<std::string, std::string>, CellOutcome> by_key;
  for (const Cell& c : s.cells) by_key[{c.window, c.action}] = c.outcome;
  std::string order;
  for (size_t i = 0; i < s.actions.size(); ++i)
    order += fmt::format("{}{} <code>{}</code>", i == 0 ? "" : ", ", i + 1, H(s.actions[i]));
  size_t width = 0;
  for (const Window& w : s.windows) width = std::max(width, w.id.size());
  std::string out = fmt::format(
      "<p class=\"legend\">No violation: a character per action, in this order: {}. "
      "<code>&#10003;</code> pass, <code>&#9675;</code> not run, <code>~</code> filtered, "
      "<code>&#183;</code> not applicable (the cells with their counts are in report.json).</p>\n"
      "<pre class=\"rows\">",
      order);
  std::string label;
  for (size_t k = 0; k < s.windows.size(); ++k) {
    const Window& w = s.windows[k];
    if (k == 0 || w.business_window != label) {
      label = w.business_window;
      out += fmt::format("<b>{}</b>\n", label.empty() ? "(no business window)" : H(label));
    }
    out += H(w.id) + std::string(width + 2 - w.id.size(), ' ');
    for (const std::string& a : s.actions) {
      auto it = by_key.find({w.id, a});
      const CellOutcome o = it == by_key.end() ? CellOutcome::kNotApplicable : it->second;
      out += o == CellOutcome::kPass       ? "\xe2\x9c\x93"  // U+2713 check mark
             : o == CellOutcome::kNotRun   ? "\xe2\x97\x8b"  // U+25CB white circle
             : o == CellOutcome::kFiltered ? "~"
                                           : "\xc2\xb7";  // U+00B7 middle dot
    }
    out += "\n";
  }
  return out + "</pre>\n";
}

// One variant's details, folded unless it holds a violation (or is explored by schedules: a few
// lines): a closed <details> is not laid out until opened.
std::string Scenario(const ScenarioReport& s) {
  Coverage cov = ComputeCoverage(s);
  const bool violated_cell = std::any_of(s.cells.begin(), s.cells.end(), [](const Cell& c) {
    return c.outcome == CellOutcome::kViolation;
  });
  bool open = s.schedules.has_value() || violated_cell;
  for (const InvariantResult& r : s.invariant_results) open |= r.violations > 0;
  const std::string figures =
      s.schedules ? fmt::format("{} of {} schedules", s.schedules->explored, s.schedules->budget)
                  : fmt::format("cells {}/{} ({}%)", cov.cells_exercised, cov.cells_total,
                                FormatPct(cov.cells_pct));
  std::string out = fmt::format(
      "<details class=\"scenario\"{}>\n<summary>Scenario <code>{}</code>: {}</summary>\n",
      open ? " open" : "", H(s.name), figures);
  if (!s.description.empty()) out += fmt::format("<p>{}</p>\n", H(s.description));
  if (s.schedules) {
    out += "<p>" + ScheduleLine(s) + ".</p>\n" + ScheduleWindows(*s.schedules);
  } else {
    out += fmt::format("<p>Cells {}/{} ({}%), windows {}/{}, runs {}, lives {}.",
                       cov.cells_exercised, cov.cells_total, FormatPct(cov.cells_pct),
                       cov.windows_exercised, cov.windows_total, s.runs, s.lives);
    out += fmt::format(
        " Recovery windows {}; crash states {} ({} distinct, {} explored, {} beyond the depth).",
        cov.recovery_windows, s.crash_states.total, s.crash_states.distinct,
        s.crash_states.explored, s.crash_states.beyond_depth);
    out += "</p>\n" + (violated_cell ? Matrix(s) : CompactMatrix(s));
  }
  out +=
      "<h3>Invariants</h3>\n<table class=\"invariants\">\n<thead><tr><th>id</th><th>statement</th>"
      "<th>checks</th><th>violations</th></tr></thead>\n<tbody>\n";
  for (const InvariantResult& r : s.invariant_results) {
    out += fmt::format(
        "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n",
        H(r.id), H(r.statement), r.checks, r.violations == 0 ? "good" : "bad", r.violations);
  }
  return out + "</tbody>\n</table>\n</details>\n";
}

std::string CodeRow(std::string_view label, std::string_view text) {
  if (text.empty()) return "";
  return fmt::format("<dt>{}</dt><dd><code>{}</code></dd>\n", label, H(text));
}

std::string Counterexamples(const Report& r) {
  const std::vector<ViolationGroup> groups = GroupViolations(r);
  std::string out =
      fmt::format("<section id=\"counterexamples\">\n<h2>Counterexamples ({} in {} groups)</h2>\n",
                  r.violations.size(), groups.size());
  if (r.violations.empty()) return out + "<p>None: no invariant was violated.</p>\n</section>\n";
  out +=
      "<table class=\"groups\">\n<thead><tr><th>scenario</th><th>invariant</th><th>kind of "
      "window or failure</th><th>count</th><th>smallest plan and "
      "replay</th></tr></thead>\n<tbody>\n";
  for (const ViolationGroup& g : groups) {
    const Violation& v = *g.smallest;
    out += fmt::format(
        "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td class=\"bad\">{}</td>"
        "<td><code>{}</code><br><code>{}</code>{}<br><span class=\"message\">{}</span></td></tr>\n",
        H(g.scenario), H(g.invariant), H(g.kind), g.count, H(v.plan), H(v.replay),
        v.holds_under.empty() ? "" : "<br>holds under: " + H(HoldsUnderText(v.holds_under)),
        H(v.message));
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

// Scenario x invariant: held (checks) or violated (count), at a glance.
std::string VerdictTableHtml(const Report& r) {
  const VerdictTable t = ComputeVerdictTable(r);
  if (t.scenarios.empty()) return "";
  std::string out =
      "<section id=\"verdicts\">\n<h2>Verdict by scenario and invariant</h2>\n<table "
      "class=\"verdicts\">\n<thead><tr><th>scenario</th>";
  for (const std::string& inv : t.invariants) out += fmt::format("<th>{}</th>", H(inv));
  out += "</tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < t.scenarios.size(); ++i) {
    out += fmt::format("<tr><th scope=\"row\"><code>{}</code></th>", H(t.scenarios[i]));
    for (const VerdictCell& c : t.cells[i]) {
      if (c.checks < 0) {
        out += "<td class=\"o-na\">&#8211;</td>";
      } else if (c.violations > 0) {
        out += fmt::format("<td class=\"bad\">violated {}</td>", c.violations);
      } else {
        out += fmt::format("<td class=\"good\">held {}</td>", c.checks);
      }
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  return out + "</section>\n";  // the mutant score is the mutants section's heading
}

std::string HeatColor(CellOutcome o) {
  switch (o) {
    case CellOutcome::kPass:
      return "#9fdcaa";
    case CellOutcome::kViolation:
      return "#e57373";
    case CellOutcome::kNotApplicable:
      return "#eeeeee";
    case CellOutcome::kNotRun:
      return "#f6c453";
    case CellOutcome::kFiltered:
      return "#b8a9d9";
  }
  return "#ffffff";
}

// One small SVG per scenario: a column per window (fault-free, then recovery), a row per action.
std::string Heatmaps(const Report& r) {
  constexpr int kCell = 4;
  std::string out =
      "<section id=\"heatmap\">\n<h2>Heatmap</h2>\n<p class=\"legend\">"
      "<span style=\"background:#9fdcaa\">pass</span><span style=\"background:#e57373\">"
      "violation</span><span style=\"background:#f6c453\">not run</span><span "
      "style=\"background:#b8a9d9\">filtered</span><span style=\"background:#eeeeee\">n/a"
      "</span> columns: windows; rows: actions</p>\n";
  for (const ScenarioReport& s : r.scenarios) {
    if (!s.skipped.empty()) {
      out += fmt::format("<p><code>{}</code>: skipped ({})</p>\n", H(s.name), H(s.skipped));
      continue;
    }
    if (s.schedules) {
      out += fmt::format("<p><code>{}</code>: explored by schedules, no cells ({} windows)</p>\n",
                         H(s.name), s.schedules->windows);
      continue;
    }
    const int w = static_cast<int>(s.windows.size()) * kCell;
    const int h = static_cast<int>(s.actions.size()) * kCell;
    out += fmt::format(
        "<figure><figcaption><code>{}</code></figcaption><svg width=\"{}\" height=\"{}\" "
        "role=\"img\" aria-label=\"{} heatmap\">",
        H(s.name), w, h, H(s.name));
    // The commonest colour is the background; one path per other colour, each row's run of
    // equal cells one stroke as thick as a row: kilobytes where a rectangle per cell made
    // megabytes.
    const size_t n = s.actions.size();
    const size_t columns = n == 0 ? 0 : s.cells.size() / n;
    std::map<std::string, int64_t> counts;
    for (const Cell& c : s.cells) ++counts[HeatColor(c.outcome)];
    std::string background;
    int64_t most = -1;
    for (const auto& [colour, count] : counts) {
      if (count > most) std::tie(background, most) = std::tie(colour, count);
    }
    if (!background.empty())
      out += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"{}\"/>", w, h, background);
    std::map<std::string, std::string> paths;  // colour -> path data
    for (size_t row = 0; row < n; ++row) {
      for (size_t col = 0; col < columns;) {
        const std::string colour = HeatColor(s.cells[col * n + row].outcome);
        size_t end = col + 1;
        while (end < columns && HeatColor(s.cells[end * n + row].outcome) == colour) ++end;
        if (colour != background)
          paths[colour] +=
              fmt::format("M{} {}h{}", col * kCell, row * kCell + kCell / 2, (end - col) * kCell);
        col = end;
      }
    }
    for (const auto& [colour, d] : paths) {
      out += fmt::format("<path fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" d=\"{}\"/>", colour,
                         kCell, d);
    }
    out += "</svg></figure>\n";
  }
  return out + "</section>\n";
}

// What the denominators are made of: points, actions, variants.
std::string CoverageDetails(const Report& r) {
  const Coverage cov = ComputeCoverage(r);
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& x : v) out += (out.empty() ? "" : ", ") + H(x);
    return out.empty() ? std::string("none") : out;
  };
  std::string out = "<section id=\"coverage\">\n<h2>Coverage details</h2>\n<dl class=\"meta\">\n";
  out += fmt::format("<dt>fault points</dt><dd>{} registered, {} reached; unreached: {}</dd>\n",
                     r.points_registered.size(), cov.points_reached.size(),
                     list(cov.points_unreached));
  out += fmt::format("<dt>actions run</dt><dd>{}</dd>\n<dt>actions filtered</dt><dd>{}</dd>\n",
                     list(cov.actions_run), list(r.actions_filtered));
  out += "<dt>variants</dt><dd><ul>";
  for (const ScenarioReport& s : r.scenarios) {
    out += fmt::format("<li><code>{}</code>: {}</li>", H(s.name),
                       s.skipped.empty() ? "explored" : "skipped: " + H(s.skipped));
  }
  return out + "</ul></dd>\n</dl>\n</section>\n";
}

std::string Properties(const Report& r) {
  if (r.properties.empty()) return "";
  std::string out =
      "<section id=\"properties\">\n<h2>Properties</h2>\n<table class=\"properties\">\n"
      "<thead><tr><th>property</th><th>scenario</th><th>invariant</th><th>cases</th>"
      "<th>result</th><th>counterexample</th></tr></thead>\n<tbody>\n";
  for (const PropertyResult& p : r.properties) {
    std::string cex;
    if (!p.passed) {
      cex = (p.message.empty() ? "" : H(p.message) + "<br>") + "<dl class=\"meta\">" +
            CodeRow("plan", p.plan) + CodeRow("replay", p.replay) +
            CodeRow("RapidCheck reproduce", p.rapidcheck_reproduce) + "</dl>";
    }
    out += fmt::format(
        "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td>"
        "<td class=\"{}\">{}</td><td>{}</td></tr>\n",
        H(p.name), H(p.scenario), H(p.invariant), p.cases, p.passed ? "good" : "bad",
        p.passed ? "passed" : "FAILED", cex);
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

std::string Mutants(const Report& r) {
  if (r.mutants.empty()) return "";
  int64_t killed =
      std::count_if(r.mutants.begin(), r.mutants.end(), [](const auto& m) { return m.killed; });
  std::string out = fmt::format(
      "<section id=\"mutants\">\n<h2>Mutants: {} of {} killed</h2>\n<table class=\"mutants\">\n"
      "<thead><tr><th>mutant</th><th>description</th><th>scenario</th><th>result</"
      "th><th>invariant</th>"
      "<th>plan</th><th>replay</th></tr></thead>\n<tbody>\n",
      killed, r.mutants.size());
  for (const MutantResult& m : r.mutants) {
    auto code = [](const std::string& s) {
      return s.empty() ? std::string() : "<code>" + H(s) + "</code>";
    };
    const std::string result = m.killed ? (m.verdict.empty() ? "killed" : H(m.verdict))
                               : m.verdict == "harness-failed" ? "HARNESS FAILED: " + H(m.message)
                                                               : "SURVIVED";
    out += fmt::format(
        "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td class=\"{}\">{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
        H(m.name), H(m.description), H(m.scenario), m.killed ? "good" : "bad", result,
        code(m.invariant), code(m.plan), code(m.replay));
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

// One horizontal bar chart per benchmark family, bars scaled to the family's slowest median.
std::string BenchCharts(const Report& r) {
  if (r.bench.empty()) return "";
  std::map<std::string, std::vector<const BenchResult*>> families;
  for (const BenchResult& b : r.bench) families[b.family].push_back(&b);
  constexpr int kLabelWidth = 300, kBarWidth = 360, kRowHeight = 22, kTextWidth = 180;
  std::string out = "<section id=\"bench\">\n<h2>Benchmarks (median time)</h2>\n";
  for (const auto& [family, rows] : families) {
    double max_ns = 0;
    for (const BenchResult* b : rows) {
      if (!std::isnan(b->median_ns)) max_ns = std::max(max_ns, b->median_ns);
    }
    int height = kRowHeight * static_cast<int>(rows.size()) + 8;
    out += fmt::format(
        "<figure class=\"bench\">\n<figcaption><code>{}</code></figcaption>\n"
        "<svg width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
        H(family), kLabelWidth + kBarWidth + kTextWidth, height,
        kLabelWidth + kBarWidth + kTextWidth, height, H(family));
    for (size_t i = 0; i < rows.size(); ++i) {
      const BenchResult& b = *rows[i];
      int y = 4 + kRowHeight * static_cast<int>(i);
      double frac = (max_ns > 0 && !std::isnan(b.median_ns)) ? b.median_ns / max_ns : 0;
      int width = std::max(1, static_cast<int>(std::lround(frac * kBarWidth)));
      std::string label = b.name.size() > family.size() ? b.name.substr(family.size() + 1) : b.name;
      std::string value = FormatNanos(b.median_ns);
      if (!std::isnan(b.ratio)) value += fmt::format("  ratio {:.2f}", b.ratio);
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", kLabelWidth - 6,
                         y + 15, H(label.empty() ? b.name : label));
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"#4a78c2\"><title>{}</title></rect>",
          kLabelWidth, y + 2, width, kRowHeight - 6, H(b.name + ": " + value));
      out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", kLabelWidth + width + 6, y + 15,
                         H(value));
    }
    out += "</svg>\n</figure>\n";
  }
  return out + "</section>\n";
}

}  // namespace

std::string HtmlReportWriter::Render(const Report& r) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>{}: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                     H(ReportTitle(r)), VerdictName(ComputeVerdict(r)), kStyle);
  out += Headline(r) + VerdictTableHtml(r);
  if (!r.scenarios.empty()) out += Heatmaps(r) + CoverageDetails(r);
  out += Counterexamples(r);
  if (!r.scenarios.empty()) {
    out +=
        "<p class=\"legend\">Cells show their run count: <span class=\"o-pass\" "
        "style=\"background:#9fdcaa\">pass</span>"
        "<span style=\"background:#e57373\">violation</span><span "
        "style=\"background:#d0d0d0\">n/a</span>"
        "<span>not run</span><span>filtered (striped violet)</span></p>\n";
  }
  for (const ScenarioReport& s : r.scenarios) {
    if (s.skipped.empty()) out += Scenario(s);
  }
  out += Properties(r) + Mutants(r) + BenchCharts(r);
  return out + "</body>\n</html>\n";
}

}  // namespace stepfault::reports
