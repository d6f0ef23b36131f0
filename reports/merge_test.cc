// Goal: merging the shards of an exploration gives exactly the report the unsharded run gives,
// and shards that do not fit together are refused with a message that says what differs.
// Method: a RapidCheck property splits random canonical reports into 1..6 shards the way
// `--shard i/n` would (each shard lists every window and action, runs only its cells, and gets
// a share of every counter and list), shuffles them, merges, and compares the model and the JSON
// bytes with the original; then hand-made mismatches, one per rule.
#include "reports/merge.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "reports/report_json.h"
#include "reports/test_reports.h"

namespace stepfault::reports {
namespace {

int64_t SmallCount() { return *rc::gen::inRange<int64_t>(0, 1000); }

Report RandomReport() {
  static const std::vector<std::string> kActions = {"crash", "powerloss", "ioerror", "corrupt",
                                                    "fail-after-write"};
  Report r;
  r.command = *rc::gen::element<std::string>("explore", "check");
  r.seed = *rc::gen::arbitrary<uint64_t>();
  r.profile = *rc::gen::element<std::string>("strict", "maf-compat");
  r.depth = *rc::gen::inRange(1, 3);
  r.min_coverage_pct = *rc::gen::element(0.0, 50.0, 99.5);
  int scenarios = *rc::gen::inRange(0, 4);
  for (int s = 0; s < scenarios; ++s) {
    ScenarioReport sc;
    sc.name = "scenario-" + std::to_string(s);
    sc.actions.assign(kActions.begin(), kActions.begin() + *rc::gen::inRange(1, 6));
    int windows = *rc::gen::inRange(0, 6);
    for (int w = 0; w < windows; ++w) {
      sc.windows.push_back(
          testing::MakeWindow("point." + std::to_string(w % 3), w / 3 + 1, w % 2 ? "" : "bw"));
      sc.windows.back().recovery = w >= 3;  // recovery windows last, sorted by id
    }
    for (const Window& w : sc.windows) {
      for (const std::string& a : sc.actions) {
        auto outcome = *rc::gen::element(CellOutcome::kPass, CellOutcome::kViolation,
                                         CellOutcome::kNotApplicable, CellOutcome::kNotRun);
        Cell c = testing::MakeCell(w, a, outcome, 0, 0);
        if (CellRan(outcome)) {
          c.runs = *rc::gen::inRange<int64_t>(1, 10);
          c.lives_max = *rc::gen::inRange(1, 5);
        }
        if (outcome == CellOutcome::kViolation) {
          c.invariants_violated = {"INV-ALO"};
          r.violations.push_back(Violation{.scenario = sc.name,
                                           .invariant = "INV-ALO",
                                           .window = w.id,
                                           .action = a,
                                           .plan = a + "@" + w.id,
                                           .replay = "stepfault replay " + sc.name,
                                           .seed = r.seed});
        }
        sc.cells.push_back(c);
      }
    }
    sc.invariant_results = {
        {.id = "INV-ALO",
         .statement = "at least once",
         .checks = SmallCount(),
         .violations = SmallCount()},
        {.id = "INV-IDEM", .statement = "idempotent", .checks = SmallCount(), .violations = 0}};
    sc.crash_states = CrashStates{.total = SmallCount(),
                                  .distinct = SmallCount(),
                                  .explored = SmallCount(),
                                  .beyond_depth = SmallCount()};
    sc.points_reached = {"fs.write", "host.resume"};
    sc.determinism_checks = SmallCount();
    sc.runs = SmallCount();
    sc.lives = SmallCount();
    r.scenarios.push_back(sc);
  }
  int extra = *rc::gen::inRange(0, 4);
  for (int i = 0; i < extra; ++i) {
    r.properties.push_back(PropertyResult{.name = "prop-" + std::to_string(i),
                                          .scenario = "scenario-0",
                                          .invariant = "INV-ALO",
                                          .cases = SmallCount(),
                                          .passed = *rc::gen::arbitrary<bool>()});
    r.mutants.push_back(MutantResult{.name = "mutant-" + std::to_string(i),
                                     .scenario = "scenario-0",
                                     .killed = *rc::gen::arbitrary<bool>()});
    r.bench.push_back(BenchResult{.name = "BM_X/" + std::to_string(i),
                                  .family = "BM_X",
                                  .median_ns = static_cast<double>(SmallCount()),
                                  .ratio = 1.5});
  }
  r.runs = SmallCount();
  r.lives = SmallCount();
  Canonicalize(&r);
  return r;
}

// n non-negative parts that sum to total.
std::vector<int64_t> SplitCount(int64_t total, int n) {
  std::vector<int64_t> cuts = {0, total};
  for (int i = 1; i < n; ++i) cuts.push_back(*rc::gen::inRange<int64_t>(0, total + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<int64_t> parts;
  for (int i = 0; i < n; ++i) parts.push_back(cuts[i + 1] - cuts[i]);
  return parts;
}

std::vector<Report> SplitIntoShards(const Report& r, int n) {
  std::vector<Report> shards(n, r);
  for (int k = 0; k < n; ++k) {
    Report& s = shards[k];
    s.shard = std::to_string(k + 1) + "/" + std::to_string(n);
    s.violations.clear();
    s.properties.clear();
    s.mutants.clear();
    s.bench.clear();
  }
  auto split_into = [&](int64_t total, auto field) {
    std::vector<int64_t> parts = SplitCount(total, n);
    for (int k = 0; k < n; ++k) *field(shards[k]) = parts[k];
  };
  split_into(r.runs, [](Report& s) { return &s.runs; });
  split_into(r.lives, [](Report& s) { return &s.lives; });
  for (size_t si = 0; si < r.scenarios.size(); ++si) {
    const ScenarioReport& sc = r.scenarios[si];
    split_into(sc.runs, [si](Report& s) { return &s.scenarios[si].runs; });
    split_into(sc.lives, [si](Report& s) { return &s.scenarios[si].lives; });
    for (size_t i = 0; i < sc.invariant_results.size(); ++i) {
      split_into(sc.invariant_results[i].checks,
                 [si, i](Report& s) { return &s.scenarios[si].invariant_results[i].checks; });
      split_into(sc.invariant_results[i].violations,
                 [si, i](Report& s) { return &s.scenarios[si].invariant_results[i].violations; });
    }
    split_into(sc.crash_states.beyond_depth,
               [si](Report& s) { return &s.scenarios[si].crash_states.beyond_depth; });
    split_into(sc.determinism_checks,
               [si](Report& s) { return &s.scenarios[si].determinism_checks; });
    for (int k = 1; k < n; ++k) {  // a shard may reach only some of the points
      if (*rc::gen::arbitrary<bool>()) shards[k].scenarios[si].points_reached = {"fs.write"};
    }
    for (size_t ci = 0; ci < sc.cells.size(); ++ci) {
      const Cell& c = sc.cells[ci];
      if (!CellRan(c.outcome)) continue;
      int owner = *rc::gen::inRange(0, n);
      for (int k = 0; k < n; ++k) {
        if (k == owner) continue;
        Cell& other = shards[k].scenarios[si].cells[ci];
        other = testing::MakeCell(Window{.id = c.window}, c.action, CellOutcome::kNotRun, 0, 0);
      }
      for (const Violation& v : r.violations) {
        if (v.scenario == sc.name && v.window == c.window && v.action == c.action) {
          shards[owner].violations.push_back(v);
        }
      }
    }
  }
  for (const PropertyResult& p : r.properties)
    shards[*rc::gen::inRange(0, n)].properties.push_back(p);
  for (const MutantResult& m : r.mutants) shards[*rc::gen::inRange(0, n)].mutants.push_back(m);
  for (const BenchResult& b : r.bench) shards[*rc::gen::inRange(0, n)].bench.push_back(b);
  // Shards arrive in any order.
  std::rotate(shards.begin(), shards.begin() + *rc::gen::inRange(0, n), shards.end());
  if (*rc::gen::arbitrary<bool>()) std::reverse(shards.begin(), shards.end());
  return shards;
}

RC_GTEST_PROP(MergeTest, MergingTheShardsGivesTheUnshardedReportByteForByte, ()) {
  Report original = RandomReport();
  int n = *rc::gen::inRange(1, 7);
  std::vector<Report> shards = SplitIntoShards(original, n);
  if (n > 1) {
    RC_TAG("sharded");
  }
  Result<Report> merged = MergeShards(shards);
  RC_ASSERT(merged.ok());
  RC_ASSERT(*merged == original);
  RC_ASSERT(ToJson(*merged) == ToJson(original));
}

std::string MergeError(const std::vector<Report>& shards) {
  Result<Report> r = MergeShards(shards);
  return r.ok() ? "(merged)" : r.status().message();
}

// A scenario explored by schedules as every shard but the first lists it: nothing run.
void NothingScheduled(ScenarioReport* s) {
  s->schedules = ScheduleCoverage{.strategy = s->schedules->strategy,
                                  .pct_depth = s->schedules->pct_depth,
                                  .budget = s->schedules->budget};
  for (InvariantResult& r : s->invariant_results) r.checks = r.violations = 0;
  s->points_reached.clear();
  s->determinism_checks = s->runs = 0;
}

std::vector<Report> TwoShards() {
  Report a = testing::SampleReport(), b = testing::SampleReport();
  a.shard = "1/2";
  b.shard = "2/2";
  for (ScenarioReport& sc : b.scenarios) {
    for (Cell& c : sc.cells) {
      if (CellRan(c.outcome))
        c = testing::MakeCell(Window{.id = c.window}, c.action, CellOutcome::kNotRun, 0, 0);
    }
    if (sc.schedules) NothingScheduled(&sc);
  }
  b.violations.clear();
  return {a, b};
}

TEST(MergeTest, TwoFittingShardsMerge) {
  Result<Report> merged = MergeShards(TwoShards());
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->shard, "1/1");
  EXPECT_EQ(merged->runs, 110);
  EXPECT_EQ(merged->scenarios[0].invariant_results[2].violations, 2);
  EXPECT_EQ(merged->violations.size(), 2u);
  EXPECT_EQ(merged->properties.size(), 2u);  // identical entries from both shards are one
}

TEST(MergeTest, ShardsOfDifferentExplorationsAreRefusedSayingWhatDiffers) {
  std::vector<Report> s = TwoShards();
  s[1].seed = 43;
  EXPECT_EQ(MergeError(s), "shards 1/2 and 2/2 are not from one exploration: seed 42 vs 43");
  s = TwoShards();
  s[1].profile = "maf-compat";
  EXPECT_EQ(MergeError(s),
            "shards 1/2 and 2/2 are not from one exploration: profile strict vs maf-compat");
  s = TwoShards();
  s[0].fs_model = "posix";
  s[1].fs_model = "xfs";
  EXPECT_EQ(MergeError(s),
            "shards 1/2 and 2/2 are not from one exploration: fs_model posix vs xfs");
  s = TwoShards();
  s[1].scenarios[0].windows.erase(s[1].scenarios[0].windows.begin());  // a fault-free window
  EXPECT_NE(
      MergeError(s).find("scenario approval: the window lists differ between shards 1/2 and 2/2"),
      std::string::npos);
  s = TwoShards();
  s[1].scenarios[0].actions[2] = "corrupt";
  EXPECT_NE(MergeError(s).find("the action lists differ"), std::string::npos);
  s = TwoShards();
  s[1].scenarios.pop_back();
  EXPECT_EQ(MergeError(s), "shards 1/2 and 2/2 list 4 and 3 scenarios");
}

TEST(MergeTest, APartialShardIsRefusedSayingToRunItAgain) {
  std::vector<Report> s = TwoShards();
  s[1].interrupted = "SIGTERM";
  EXPECT_EQ(
      MergeError(s),
      "shard 2/2 is partial (interrupted by SIGTERM): run it again to completion, then merge");
}

TEST(MergeTest, MissingDuplicateAndMalformedShardsAreRefused) {
  std::vector<Report> s = TwoShards();
  s[1].shard = "1/2";
  EXPECT_EQ(MergeError(s), "duplicate shard 1/2; each shard must be given once");
  s = TwoShards();
  s[1].shard = "3/3";
  EXPECT_NE(MergeError(s).find("shard counts differ"), std::string::npos);
  s = TwoShards();
  s.pop_back();
  EXPECT_EQ(MergeError(s), "missing shard 2/2");
  s = TwoShards();
  s[0].shard = "0/2";
  EXPECT_EQ(MergeError(s), "shard \"0/2\" is not of the form i/n with 1 <= i <= n");
  EXPECT_EQ(MergeError({}), "no shard reports to merge");
}

// A scenario explored by schedules is explored whole by shard 1: the merged report keeps its
// figures and invariant counts as they were (whichever order the shards come in); two shards
// that both explored it are refused.
TEST(MergeTest, TheScheduleScenarioOfShardOneIsKeptAndTwoExplorationsAreRefused) {
  std::vector<Report> s = TwoShards();
  const ScenarioReport& flow = s[0].scenarios[3];
  ASSERT_TRUE(flow.schedules.has_value());
  Result<Report> merged = MergeShards({s[1], s[0]});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->scenarios[3].schedules, flow.schedules);
  EXPECT_EQ(merged->scenarios[3].invariant_results, flow.invariant_results);
  EXPECT_EQ(merged->scenarios[3].runs, flow.runs);
  s[1].scenarios[3] = flow;
  EXPECT_NE(MergeError(s).find("two shards ran one"), std::string::npos) << MergeError(s);
  s = TwoShards();
  s[1].scenarios[3].schedules.reset();
  EXPECT_NE(MergeError(s).find("the schedule blocks differ"), std::string::npos) << MergeError(s);
}

// A window reached in several lives is a cell run by tasks of several shards: the runs add up.
TEST(MergeTest, ACellRunInTwoShardsAddsUpItsRunsAndKeepsEveryViolation) {
  std::vector<Report> s = TwoShards();
  s[1].scenarios[0].cells[0] = s[0].scenarios[0].cells[1];
  s[1].scenarios[0].cells[0].window = s[0].scenarios[0].cells[0].window;
  s[1].scenarios[0].cells[0].action = s[0].scenarios[0].cells[0].action;
  Result<Report> merged = MergeShards(s);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  const Cell& c = merged->scenarios[0].cells[0];
  EXPECT_EQ(c.runs, 5);
  EXPECT_EQ(c.outcome, CellOutcome::kViolation);
  EXPECT_EQ(c.invariants_violated, std::vector<std::string>{"INV-RECEIPT"});
}

TEST(MergeTest, RecoveryWindowsOfEveryShardAreJoinedInIdOrder) {
  std::vector<Report> s = TwoShards();
  Window extra = testing::MakeWindow("fs.write[db]", 9, "");
  extra.recovery = true;
  s[1].scenarios[0].windows.push_back(extra);
  for (const std::string& a : s[1].scenarios[0].actions)
    s[1].scenarios[0].cells.push_back(testing::MakeCell(extra, a, CellOutcome::kPass, 1, 2));
  Result<Report> merged = MergeShards(s);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  const auto& windows = merged->scenarios[0].windows;
  ASSERT_EQ(windows.size(), s[0].scenarios[0].windows.size() + 1);
  EXPECT_EQ(windows[windows.size() - 2].id, "fs.write[db]#9");  // before the sample's "start:..."
  EXPECT_EQ(merged->scenarios[0].cells.size(), windows.size() * s[1].scenarios[0].actions.size());
}

TEST(MergeTest, CanonicalOrderFollowsScenarioWindowAndActionOrderNotSpelling) {
  Report r = testing::SampleReport();
  Violation late = r.violations[0];
  late.window = "fs.fsync[checkpoint]#2";  // third window, although it sorts first by text
  Violation early = r.violations[0];
  early.action = "crash";  // first action
  Violation other = r.violations[0];
  other.scenario = "fan-in";
  r.violations = {other, late, r.violations[0], early, early};
  Canonicalize(&r);
  ASSERT_EQ(r.violations.size(), 4u);  // the duplicate is dropped
  EXPECT_EQ(r.violations[0], early);
  EXPECT_EQ(r.violations[1].window, "fs.rename[receipt]#1");
  EXPECT_EQ(r.violations[1].action, "powerloss");
  EXPECT_EQ(r.violations[2], late);
  EXPECT_EQ(r.violations[3], other);
}

}  // namespace
}  // namespace stepfault::reports
