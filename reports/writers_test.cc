// Goal: each writer renders the sample report exactly as its reviewed golden file, every format
// shows a violation, output is escaped and self-contained, and junit.xml is well-formed with the
// right counts. Method: golden files in reports/testdata/ (STEPFAULT_UPDATE_GOLDENS=1 rewrites
// them, then review the diff); a small XML well-formedness checker written here, plus xmllint
// when installed; a hostile report full of markup; and the page rendered in headless
// /usr/bin/chromium and its DOM inspected (a missing Chromium fails the test, unless
// STEPFAULT_ALLOW_MISSING_BROWSER=1 skips it).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <regex>
#include <vector>

#include "reports/report_json.h"
#include "reports/report_writer.h"
#include "reports/test_reports.h"
#include "tools/testing/test_env.h"

namespace stepfault::reports {
namespace {

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

std::string MakeTempDir() {
  static int made = 0;
  return test_env::ScratchDir("reports-" + std::to_string(made++));
}

// Returns "" when `xml` is well-formed (single root, balanced tags, quoted attributes, only the
// five predefined entities or character references), else what is wrong.
std::string XmlProblem(const std::string& xml) {
  std::vector<std::string> open;
  int roots = 0;
  size_t i = 0;
  auto bad_amp = [](const std::string& s) {
    static const std::regex kEntity("&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
    for (size_t p = s.find('&'); p != std::string::npos; p = s.find('&', p + 1)) {
      std::smatch m;
      std::string rest = s.substr(p, 12);
      if (!std::regex_search(rest, m, kEntity) || m.position(0) != 0) return true;
    }
    return false;
  };
  if (xml.starts_with("<?xml ")) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    size_t lt = xml.find('<', i);
    std::string text = xml.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (bad_amp(text) || text.find('>') != std::string::npos) return "bad character data: " + text;
    if (open.empty() && text.find_first_not_of(" \n\t\r") != std::string::npos)
      return "text outside the root";
    if (lt == std::string::npos) break;
    size_t gt = lt;
    char quote = 0;
    for (gt = lt + 1; gt < xml.size(); ++gt) {
      if (quote != 0) {
        if (xml[gt] == quote)
          quote = 0;
        else if (xml[gt] == '<')
          return "'<' inside an attribute value";
      } else if (xml[gt] == '"' || xml[gt] == '\'') {
        quote = xml[gt];
      } else if (xml[gt] == '>') {
        break;
      }
    }
    if (gt >= xml.size()) return "unterminated tag";
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    if (bad_amp(tag)) return "bad entity in tag " + tag;
    static const std::regex kOpen(
        R"(([A-Za-z_][\w.-]*)(\s+[A-Za-z_][\w.-]*=("[^"]*"|'[^']*'))*\s*(/?))");
    static const std::regex kClose(R"(/([A-Za-z_][\w.-]*)\s*)");
    std::smatch m;
    if (std::regex_match(tag, m, kClose)) {
      if (open.empty() || open.back() != m[1]) return "mismatched </" + m[1].str() + ">";
      open.pop_back();
    } else if (std::regex_match(tag, m, kOpen)) {
      if (open.empty() && ++roots > 1) return "more than one root element";
      if (m[4].str().empty()) open.push_back(m[1]);
    } else {
      return "malformed tag <" + tag + ">";
    }
    i = gt + 1;
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  return roots == 1 ? "" : "no root element";
}

void CheckGolden(const std::string& name, const std::string& actual) {
  std::string dir = JoinPath(testing::SourceDir(), "reports/testdata");
  const char* update = std::getenv("STEPFAULT_UPDATE_GOLDENS");
  if (update != nullptr && std::string(update) == "1") {
    ASSERT_TRUE(WriteFileAtomically(PosixEnv(), dir, name, actual).ok());
    return;
  }
  Result<std::string> golden = PosixEnv()->ReadFile(JoinPath(dir, name));
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();
  EXPECT_EQ(actual, *golden)
      << name << " differs from its golden; if the change is intended, rerun with "
      << "STEPFAULT_UPDATE_GOLDENS=1 and review the diff of reports/testdata/";
}

Report Hostile() {
  Report r = testing::SampleReport();
  const std::string evil = "<script>alert(1)</script>\"'&<img src=x onerror=alert(2)>]]>";
  r.command = evil;
  r.scenarios[0].name = evil;
  r.scenarios[0].description = evil;
  r.scenarios[0].windows[0].business_window = evil;
  r.scenarios[0].actions[0] = evil;
  for (Cell& c : r.scenarios[0].cells) {
    if (c.action == "crash") c.action = evil;
  }
  r.violations[0].message = evil;
  r.violations[0].plan = evil + "\x01";
  r.violations[0].scenario = evil;
  r.properties[1].name = evil;
  r.mutants[1].description = evil;
  r.bench[0].name = "BM_Checkpoint/" + evil;
  r.bench[0].family = "BM_Checkpoint";
  return r;
}

TEST(WritersTest, EachWriterMatchesItsGoldenFile) {
  Report r = testing::SampleReport();
  std::vector<std::string> names;
  for (const auto& writer : AllReportWriters()) {
    names.push_back(writer->file_name());
    std::string text = writer->Render(r);
    EXPECT_EQ(text, writer->Render(r)) << "not deterministic: " << writer->file_name();
    CheckGolden(writer->file_name(), text);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"report.json", "report.html", "summary.md", "junit.xml"}));
}

TEST(WritersTest, WriteAllPublishesTheFourFilesAtomically) {
  std::string dir = JoinPath(MakeTempDir(), "out");
  Report r = testing::SampleReport();
  ASSERT_TRUE(WriteAll(PosixEnv(), dir, r).ok());
  Result<std::vector<std::string>> children = PosixEnv()->GetChildren(dir);
  ASSERT_TRUE(children.ok());
  EXPECT_EQ(*children,
            (std::vector<std::string>{"junit.xml", "report.html", "report.json", "summary.md"}));
  for (const auto& writer : AllReportWriters()) {
    Result<std::string> text = PosixEnv()->ReadFile(JoinPath(dir, writer->file_name()));
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(*text, writer->Render(r));
  }
  Status s = WriteAll(PosixEnv(), "/proc/stepfault-no-such-dir/out", r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/proc/stepfault-no-such-dir/out"), std::string::npos) << s.message();
}

// One test case per window with an applicable action (issue 30: one per cell ran to 46,450 cases,
// 10,227 of them skipped, for tools/run's report).
TEST(WritersTest, JunitIsWellFormedAndCountsWindowsPropertiesAndMutants) {
  Report r = testing::SampleReport();
  std::string xml = JunitReportWriter().Render(r);
  EXPECT_EQ(XmlProblem(xml), "");
  // approval's 4 windows (one violated) and fan-in's 2, the 3 invariants of the scenario explored
  // by schedules (one violated), plus 2 properties and 3 mutants; no window lacks a run cell.
  EXPECT_EQ(Count(xml, "<testcase "), 4 + 2 + 3 + 2 + 3);
  EXPECT_NE(xml.find("<testsuites name=\"stepfault explore\" tests=\"14\" failures=\"4\" "
                     "errors=\"0\" skipped=\"0\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"scenario.approval\" tests=\"4\" failures=\"1\" "
                     "errors=\"0\" skipped=\"0\">"),
            std::string::npos)
      << xml;
  // Each case lists its actions' outcomes; the violated window's failure names the action.
  EXPECT_NE(xml.find("name=\"fs.fsync[checkpoint]#2\">\n      <system-out>crash: not-run\n"
                     "powerloss: pass (4 runs)\nioerror: not-run\n</system-out>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("message=\"powerloss: invariant INV-RECEIPT; plan: "), std::string::npos);
  EXPECT_NE(xml.find("ioerror: filtered\n"), std::string::npos);
  // A window none of whose cells ran is skipped, with the reason that fits the run.
  Report unrun = r;
  for (Cell& c : unrun.scenarios[0].cells) {
    if (c.window == "fs.fsync[checkpoint]#2" && c.outcome == CellOutcome::kPass)
      c.outcome = CellOutcome::kNotRun;
  }
  const std::string skipped = JunitReportWriter().Render(unrun);
  EXPECT_EQ(Count(skipped, "<skipped "), 1);
  EXPECT_NE(skipped.find("<skipped message=\"not run: beyond the depth (--depth 2)\"/>"),
            std::string::npos)
      << skipped;
  unrun.shard = "1/2";
  EXPECT_NE(
      JunitReportWriter().Render(unrun).find("not run: in another shard, or beyond the depth"),
      std::string::npos);
  EXPECT_NE(xml.find("<property name=\"recovery_windows\" value=\"1\"/>"), std::string::npos);
  EXPECT_EQ(Count(xml, "<failure "), 4);
  EXPECT_NE(xml.find("mutant skip-dirsync survived"), std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"scenario.interactive-flow\" tests=\"3\" failures=\"1\" "
                     "errors=\"0\" skipped=\"0\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<property name=\"context_switches\" value=\"321\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"distinct_states\" value=\"1234 (in the first 10 "
                     "schedules)\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("message=\"invariant INV-FLOW-LEASE; plan: crash:b@3; replay: stepfault "
                     "replay interactive-flow --plan crash:b@3 --schedule &apos;a1b2c3&apos;"),
            std::string::npos);
  EXPECT_EQ(xml.find("time="), std::string::npos);
}

TEST(WritersTest, XmlCheckerRejectsBrokenDocuments) {
  // Guards the checker: it must not accept what xmllint would reject.
  EXPECT_EQ(XmlProblem("<a><b/></a>"), "");
  EXPECT_NE(XmlProblem("<a><b></a>"), "");
  EXPECT_NE(XmlProblem("<a x=\"<\"/>"), "");
  EXPECT_NE(XmlProblem("<a>&nbsp;</a>"), "");
  EXPECT_NE(XmlProblem("<a/><b/>"), "");
  EXPECT_NE(XmlProblem("<a>x > y</a>"), "");
}

TEST(WritersTest, HostileTextIsEscapedInEveryMarkupFormat) {
  Report r = Hostile();
  std::string html = HtmlReportWriter().Render(r);
  EXPECT_EQ(Count(html, "<script"), 0);
  EXPECT_EQ(Count(html, "<img"), 0);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;&lt;img"),
            std::string::npos);
  std::string xml = JunitReportWriter().Render(r);
  EXPECT_EQ(XmlProblem(xml), "");
  EXPECT_EQ(Count(xml, "<script"), 0);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  if (access("/usr/bin/xmllint", X_OK) == 0) {
    std::string dir = MakeTempDir();
    ASSERT_TRUE(WriteFileAtomically(PosixEnv(), dir, "junit.xml", xml).ok());
    ASSERT_TRUE(WriteFileAtomically(PosixEnv(), dir, "sample.xml",
                                    JunitReportWriter().Render(testing::SampleReport()))
                    .ok());
    EXPECT_EQ(
        std::system(
            ("/usr/bin/xmllint --noout " + dir + "/junit.xml " + dir + "/sample.xml").c_str()),
        0);
  }
  std::string md = MarkdownReportWriter().Render(r);
  EXPECT_EQ(Count(md, "\n| `<script>alert(1)</script>\"'&<img src=x onerror=alert(2)>]]>` |"), 1)
      << md;
}

TEST(WritersTest, HtmlIsSelfContainedAndCountsEveryCell) {
  std::string html = HtmlReportWriter().Render(testing::SampleReport());
  for (const char* forbidden :
       {"http", "src=", "<link", "<script", "url(", "@import", "@font-face", "//"}) {
    EXPECT_EQ(html.find(forbidden), std::string::npos) << forbidden;
  }
  // approval has a violation: a table of its 12 cells, the n/a one an empty <td> without the
  // attribute. fan-in has none: a line of characters per window.
  EXPECT_EQ(Count(html, "<table class=\"matrix\">"), 1);
  EXPECT_EQ(Count(html, "data-outcome="), 11);
  EXPECT_EQ(Count(html, "data-outcome=\"pass\""), 7);
  EXPECT_NE(html.find("<pre class=\"rows\"><b>barrier half full</b>\ncheckpoint.commit.before#1  "
                      "\xe2\x9c\x93\xe2\x9c\x93\n<b>(no business window)</b>\n"
                      "checkpoint.commit.before#2  \xe2\x9c\x93\xc2\xb7\n</pre>"),
            std::string::npos);
  EXPECT_EQ(Count(html, "<details class=\"scenario\" open>"), 2);  // approval, interactive-flow
  EXPECT_EQ(Count(html, "data-outcome=\"filtered\""), 1);
  // The verdict table, the heatmap and the grouped counterexamples come before the details.
  EXPECT_LT(html.find("id=\"verdicts\""), html.find("id=\"heatmap\""));
  EXPECT_LT(html.find("id=\"heatmap\""), html.find("id=\"counterexamples\""));
  EXPECT_LT(html.find("id=\"counterexamples\""), html.find("<table class=\"matrix\">"));
  EXPECT_NE(html.find("violated 1"), std::string::npos);
  EXPECT_EQ(Count(html, "2 of 3 killed"), 1);  // said once: the mutants section's heading
  EXPECT_EQ(Count(html, "Mutant score"), 0);
  // The scenario explored by schedules: its figures at the top and in its section, no matrix.
  EXPECT_EQ(Count(html, "321 context switches"), 2);
  EXPECT_NE(html.find("40 of 40 schedules explored (pct depth 3), 1234 distinct states (in the "
                      "first 10), 17 distinct final worlds, 9000 scheduling points"),
            std::string::npos);
  EXPECT_NE(html.find("3 windows (distinct actor@point) covered under interleaving"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th scope=\"row\"><code>worker-a</code></th><td><code>fs.write[db]"
                      "</code> <code>worker.claim</code></td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>schedule with a crash</td>"), std::string::npos);
  EXPECT_NE(html.find("killed-as-expected"), std::string::npos);
  EXPECT_EQ(Count(html, "data-outcome=\"violation\""), 1);
  EXPECT_EQ(Count(html, "data-outcome=\"not-run\""), 2);
  EXPECT_EQ(Count(html, "<svg "), 4);  // a heatmap per explored scenario, a chart per family
  EXPECT_NE(html.find("ratio 3.84"), std::string::npos);
  EXPECT_NE(html.find("after published wait"),
            std::string::npos);  // business window in the row label
  EXPECT_NE(html.find("title=\"fs.rename[receipt]#1 x powerloss: violation, 2 runs, at most 3 "
                      "lives; violated INV-RECEIPT\""),
            std::string::npos);
  EXPECT_NE(html.find("crash states 9 (6 distinct, 6 explored, 4 beyond the depth)"),
            std::string::npos);
  EXPECT_NE(html.find("unreached: output.publish.before"), std::string::npos);
}

TEST(WritersTest, AViolationShowsInEveryFormat) {
  Report r = testing::SampleReport();
  const Violation& v = r.violations[0];
  std::string json = JsonReportWriter().Render(r);
  EXPECT_NE(json.find("\"verdict\": \"violation\""), std::string::npos);
  EXPECT_NE(json.find("\"invariant\": \"INV-RECEIPT\""), std::string::npos);
  std::string html = HtmlReportWriter().Render(r);
  EXPECT_NE(html.find("<td data-outcome=\"violation\" title="), std::string::npos);
  EXPECT_NE(html.find("<header class=\"verdict v-violation\""), std::string::npos);
  EXPECT_NE(html.find("<code>stepfault replay approval --plan "
                      "&#39;powerloss@fs.rename[receipt]#1&#39; --seed 42</code>"),
            std::string::npos);
  EXPECT_NE(html.find("<code>BchVZtVZuBXYwRHdvBXY</code>"),
            std::string::npos);  // RapidCheck reproduce
  std::string md = MarkdownReportWriter().Render(r);
  EXPECT_EQ(md.rfind("## Stepfault explore: **VIOLATION** (exit 1)\n", 0), 0u) << md;
  EXPECT_NE(md.find("`" + v.replay + "`"), std::string::npos);
  EXPECT_NE(md.find("Mutants: 2/3 killed."), std::string::npos);
  EXPECT_NE(md.find("Schedules (`interactive-flow`, several actors, no cells): 40 of 40 explored "
                    "(pct depth 3), 1234 distinct states (in the first 10), 17 distinct final "
                    "worlds, 321 context switches, 19 faults fired, 3 windows"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**violated 3**"), std::string::npos);
  std::string xml = JunitReportWriter().Render(r);
  EXPECT_NE(
      xml.find(
          "<failure type=\"invariant-violation\" message=\"powerloss: invariant INV-RECEIPT; plan: "
          "powerloss@fs.rename[receipt]#1; replay: stepfault replay approval --plan "
          "&apos;powerloss@fs.rename[receipt]#1&apos; --seed 42\">"),
      std::string::npos)
      << xml;
}

// A mutant whose hunting worker died (verdict harness-failed, properties/mutants.h) says so, with
// its message, in every report, is no pass, and its message round-trips through report.json.
TEST(WritersTest, AMutantWhoseHarnessFailedSaysSoInEveryReport) {
  Report r = testing::SampleReport();
  MutantResult& m = r.mutants[2];
  m.invariant = "INV-HARNESS";
  m.verdict = "harness-failed";
  m.message = "the worker hunting mutant 'skip-dirsync' died of signal 6 (Aborted)";
  EXPECT_EQ(ComputeVerdict(r), Verdict::kViolation);
  Result<Report> back = FromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->mutants[2], m);
  EXPECT_NE(HtmlReportWriter().Render(r).find("HARNESS FAILED: the worker hunting mutant "
                                              "&#39;skip-dirsync&#39; died of signal 6"),
            std::string::npos);
  EXPECT_NE(MarkdownReportWriter().Render(r).find("- HARNESS FAILED `skip-dirsync`: the worker"),
            std::string::npos);
  EXPECT_NE(JunitReportWriter().Render(r).find("type=\"mutant-harness-failed\""),
            std::string::npos);
  // Without a message the member is absent: reports of other hunts keep their bytes.
  EXPECT_EQ(ToJson(testing::SampleReport()).find("\"message\": \"the worker"), std::string::npos);
}

// The sample report with its one violation, failed property and surviving mutant made good.
Report CleanSampleReport() {
  Report r = testing::SampleReport();
  r.violations.clear();
  r.scenarios[0].cells[1].outcome = CellOutcome::kPass;
  r.scenarios[0].cells[1].invariants_violated.clear();
  r.properties[1].passed = true;
  r.mutants[2].killed = true;
  r.scenarios[3].invariant_results[0].violations = 0;
  return r;
}

TEST(WritersTest, ACleanReportShowsPassEverywhere) {
  Report r = CleanSampleReport();
  EXPECT_EQ(Count(JunitReportWriter().Render(r), "<failure "), 0);
  EXPECT_EQ(MarkdownReportWriter().Render(r).rfind("## Stepfault explore: **PASS** (exit 0)\n", 0),
            0u);
  std::string html = HtmlReportWriter().Render(r);
  EXPECT_EQ(Count(html, "data-outcome=\"violation\""), 0);
  EXPECT_NE(html.find("<header class=\"verdict v-pass\""), std::string::npos);
}

// Issue 30: tools/run's report.html was 36 MB (a table cell with a tooltip per window x action,
// an SVG rectangle per cell in the heatmap) and took 58 s to open. A report of tools/run's shape
// at more than its size (50 variants x 400 windows x 12 actions; tools/run has 46 variants, 12,018
// windows, 176,000 cells) stays within 5 MB, its heatmaps within 1 MB; only the variant
// with a violation is a table of cells (and unfolded), the others a line of text per window.
TEST(WritersTest, AReportOfAQuarterMillionCellsStaysAPageThatOpensAtOnce) {
  Report r = testing::SampleReport();
  r.scenarios.clear();
  r.violations.clear();
  const std::vector<std::string> actions = {"crash",
                                            "powerloss",
                                            "ioerror",
                                            "corrupt",
                                            "fail-after-write",
                                            "topology",
                                            "duplicate-response",
                                            "conflicting-response",
                                            "observer-cancel",
                                            "ioerror:enospc",
                                            "corrupt:truncate",
                                            "corrupt:zero"};
  for (int v = 0; v < 50; ++v) {
    ScenarioReport s;
    s.name = "scenario-" + std::to_string(v) + " [store=sqlite-persist,checkpoints=incremental]";
    s.actions = actions;
    for (int w = 0; w < 400; ++w) {
      Window win = testing::MakeWindow(
          (w % 2 ? "resume:fs.write[checkpoint-" : "fs.fsync[checkpoint-") + std::to_string(w % 7) +
              "]",
          w / 14 + 1, "after the checkpoint of step " + std::to_string(w / 20) + " before publish");
      win.recovery = w % 2 == 1;
      s.windows.push_back(win);
      for (size_t a = 0; a < actions.size(); ++a) {
        // Which actions apply depends on the window's point, as in a real exploration.
        const bool applies = (w % 7 + static_cast<int>(a)) % 4 != 0;
        const CellOutcome o = !applies                       ? CellOutcome::kNotApplicable
                              : v == 7 && w == 300 && a == 1 ? CellOutcome::kViolation
                              : w % 2 == 1 && a == 2         ? CellOutcome::kNotRun
                                                             : CellOutcome::kPass;
        s.cells.push_back(testing::MakeCell(win, actions[a], o, CellRan(o) ? 1 + w % 3 : 0, 2));
      }
    }
    r.scenarios.push_back(std::move(s));
  }
  const std::string html = HtmlReportWriter().Render(r);
  int64_t applicable = 0;
  for (const Cell& c : r.scenarios[7].cells)
    applicable += c.outcome != CellOutcome::kNotApplicable ? 1 : 0;
  EXPECT_EQ(Count(html, "data-outcome="), applicable);
  EXPECT_EQ(Count(html, "<table class=\"matrix\">"), 1);
  EXPECT_EQ(Count(html, "<pre class=\"rows\">"), 49);
  EXPECT_LE(html.size(), 5u << 20) << "bytes per cell: " << html.size() / (50 * 400 * 12);
  const size_t heat = html.find("id=\"coverage\"") - html.find("id=\"heatmap\"");
  EXPECT_LE(heat, 1u << 20);  // this pattern changes colour every other cell: tools/run's is 40 KB
  EXPECT_EQ(Count(html, "<details class=\"scenario\" open>"), 1);  // the one with a violation
  EXPECT_EQ(Count(html, "<details class=\"scenario\">"), 49);
}

// Issue 30: a partial report says so first in every format, and fails CI's junit.
TEST(WritersTest, APartialReportSaysSoInEveryFormat) {
  Report r = CleanSampleReport();
  r.interrupted = "SIGINT";
  EXPECT_EQ(MarkdownReportWriter().Render(r).rfind(
                "## Stepfault explore: **PARTIAL (interrupted by SIGINT)** (exit 130)\n", 0),
            0u);
  const std::string html = HtmlReportWriter().Render(r);
  EXPECT_NE(html.find("<header class=\"verdict v-interrupted\""), std::string::npos);
  EXPECT_NE(html.find("PARTIAL: interrupted by SIGINT"), std::string::npos);
  const std::string junit = JunitReportWriter().Render(r);
  EXPECT_EQ(Count(junit, "<failure "), 1);
  EXPECT_NE(junit.find("type=\"interrupted\""), std::string::npos);
  EXPECT_NE(ToJson(r).find("\"interrupted\": \"SIGINT\""), std::string::npos);
}

// Issue 31: an inconclusive report says INCONCLUSIVE first in every format, with what was not
// seen, and junit shows it as an error (neither a pass nor a failure).
TEST(WritersTest, AnInconclusiveReportSaysWhatWasNotSeenInEveryFormat) {
  Report r = CleanSampleReport();
  r.inconclusive = {"copy_file_range: data.bin",
                    "replaying the trace does not give the directory the run left (data.bin "
                    "differs)"};
  const std::string md = MarkdownReportWriter().Render(r);
  EXPECT_EQ(md.rfind("## Stepfault explore: **INCONCLUSIVE (the recording is incomplete: nothing "
                     "was explored)** (exit 5)\n",
                     0),
            0u)
      << md;
  EXPECT_NE(md.find("- copy_file_range: data.bin\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("PASS"), std::string::npos);
  const std::string html = HtmlReportWriter().Render(r);
  EXPECT_NE(html.find("<header class=\"verdict v-inconclusive\""), std::string::npos);
  EXPECT_NE(html.find("<li>copy_file_range: data.bin</li>"), std::string::npos);
  const std::string junit = JunitReportWriter().Render(r);
  EXPECT_EQ(Count(junit, "<failure "), 0);
  EXPECT_EQ(Count(junit,
                  "<error type=\"inconclusive\" message=\"INCONCLUSIVE: the recording is "
                  "incomplete: copy_file_range: data.bin\">"),
            1)
      << junit;
  EXPECT_NE(junit.find("errors=\"1\""), std::string::npos);
  Result<Report> back = FromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->inconclusive, r.inconclusive);
  EXPECT_NE(ToJson(r).find("\"verdict\": \"inconclusive\""), std::string::npos);
}

// Issue 30: a mutant hunt's report has no cells, so it says so instead of "PASS 0/0 cells", and
// gives its score once.
TEST(WritersTest, AMutantHuntHasNoCellLineAndItsScoreOnce) {
  Report r = testing::SampleReport();
  r.violations.clear();
  r.properties.clear();
  r.scenarios.clear();
  r.command = "stepfault mutants --out m";
  const std::string md = MarkdownReportWriter().Render(r);
  EXPECT_EQ(md.find("0/0"), std::string::npos) << md;
  EXPECT_NE(md.find("No cells: this report holds a mutant hunt"), std::string::npos) << md;
  EXPECT_EQ(Count(md, "killed."), 1) << md;
  const std::string html = HtmlReportWriter().Render(r);
  EXPECT_EQ(html.find("cells 0/0"), std::string::npos);
  EXPECT_NE(html.find("No cells: this report holds a mutant hunt."), std::string::npos);
  EXPECT_EQ(Count(html, "of 3 killed"), 1);
}

// Issue 30: a report of `stepfault blackbox explore ...` was titled "Stepfault stepfault blackbox".
TEST(WritersTest, ATitleNamesTheToolOnceWhateverTheCommandSays) {
  Report r = testing::SampleReport();
  r.violations.clear();
  r.command = "stepfault blackbox explore --spec s.json";
  EXPECT_EQ(ReportTitle(r), "stepfault blackbox explore --spec s.json");
  const std::string md = MarkdownReportWriter().Render(r);
  EXPECT_EQ(md.rfind("## stepfault blackbox explore --spec s.json: **", 0), 0u) << md.substr(0, 80);
  const std::string html = HtmlReportWriter().Render(r);
  EXPECT_NE(html.find("<title>stepfault blackbox explore --spec s.json: "), std::string::npos);
  EXPECT_EQ(html.find("Stepfault stepfault"), std::string::npos);
  r.command = "explore";
  EXPECT_EQ(ReportTitle(r), "Stepfault explore");
}

TEST(WritersTest, SummaryStaysShortAndSaysHowManyWereCut) {
  Report r = testing::SampleReport();
  EXPECT_LE(Count(MarkdownReportWriter().Render(r), "\n"), 60);
  for (int i = 0; i < 40; ++i) {
    ScenarioReport s = r.scenarios[1];
    s.name = "json-" + std::to_string(i);
    r.scenarios.push_back(s);
    r.violations.push_back(r.violations[0]);
    r.violations.back().window = "p" + std::to_string(i) + "#1";  // a group of its own
    r.properties.push_back(r.properties[1]);
    r.mutants.push_back(r.mutants[2]);
  }
  std::string md = MarkdownReportWriter().Render(r);
  EXPECT_LE(Count(md, "\n"), 60) << md;
  EXPECT_NE(md.find("... 31 more scenarios in report.html"), std::string::npos) << md;
  EXPECT_NE(md.find("- ... 34 more (see report.html)"), std::string::npos)
      << md;  // 42 groups of violations, 8 shown
  EXPECT_NE(md.find("Mutants: 2/43 killed."), std::string::npos);
}

// Renders the page in headless Chromium and inspects the DOM it built, proving the file opens in a
// real browser without network access and that the matrix survives HTML parsing.
TEST(WritersTest, ChromiumRendersTheMatrixAndTheCounterexample) {
  STEPFAULT_REQUIRE_PROGRAM(access("/usr/bin/chromium", X_OK) == 0, "/usr/bin/chromium",
                            "STEPFAULT_ALLOW_MISSING_BROWSER");
  std::string dir = MakeTempDir();
  ASSERT_TRUE(WriteFileAtomically(PosixEnv(), dir, "report.html",
                                  HtmlReportWriter().Render(testing::SampleReport()))
                  .ok());
  std::string cmd =
      "timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu "
      "--disable-background-networking --disable-component-update --disable-sync --no-first-run "
      "--user-data-dir=" +
      dir + "/profile --dump-dom file://" + dir + "/report.html 2>/dev/null";
  std::FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string dom;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) dom.append(buf, n);
  ASSERT_EQ(pclose(pipe), 0) << "chromium failed: " << cmd;
  EXPECT_EQ(Count(dom, "class=\"matrix\""), 1) << dom.substr(0, 500);
  EXPECT_EQ(Count(dom, "data-outcome="), 11);  // approval's cells but the n/a one
  EXPECT_EQ(Count(dom, "data-outcome=\"violation\""), 1);
  EXPECT_NE(
      dom.find(
          "receipt wait-0001 torn after power loss: expected 64 bytes, found 17 &lt;partial&gt;"),
      std::string::npos);
}

}  // namespace
}  // namespace stepfault::reports
