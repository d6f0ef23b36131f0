// Goal: coverage and verdict follow their documented rules exactly. Method: count by hand on the
// sample report, then change one thing at a time (a cell, a property, a mutant, the minimum)
// and check the verdict and exit code move as documented.
#include "reports/report_model.h"

#include <gtest/gtest.h>

#include "reports/test_reports.h"

namespace stepfault::reports {
namespace {

Report Clean() {
  Report r = testing::SampleReport();
  r.violations.clear();
  r.scenarios[0].cells[1].outcome = CellOutcome::kPass;
  r.properties[1].passed = true;
  for (MutantResult& m : r.mutants) m.killed = true;
  return r;
}

TEST(ReportModelTest, OutcomeNamesRoundTripAndRejectOthers) {
  for (CellOutcome o : {CellOutcome::kPass, CellOutcome::kViolation, CellOutcome::kNotApplicable,
                        CellOutcome::kNotRun, CellOutcome::kFiltered}) {
    EXPECT_EQ(ParseCellOutcome(CellOutcomeName(o)), o);
  }
  EXPECT_EQ(CellOutcomeName(CellOutcome::kNotApplicable), "n/a");
  EXPECT_EQ(CellOutcomeName(CellOutcome::kNotRun), "not-run");
  EXPECT_EQ(CellOutcomeName(CellOutcome::kFiltered), "filtered");
  EXPECT_FALSE(ParseCellOutcome("PASS").has_value());
  EXPECT_FALSE(ParseCellOutcome("").has_value());
}

TEST(ReportModelTest, CoverageSkipsNotApplicableCellsButCountsFilteredAndNotRunOnes) {
  Coverage c = ComputeCoverage(testing::SampleReport());
  // approval: 12 cells, 1 n/a, 2 not-run, 1 filtered -> 11 total, 8 exercised; fan-in: 4 cells,
  // 1 n/a -> 3, 3; the skipped variant has no cells.
  EXPECT_EQ(c.cells_total, 14);
  EXPECT_EQ(c.cells_exercised, 11);
  EXPECT_EQ(c.cells_filtered, 1);
  EXPECT_EQ(c.cells_not_run, 2);
  EXPECT_EQ(c.windows_total, 6);
  EXPECT_EQ(c.recovery_windows, 1);
  EXPECT_EQ(c.windows_exercised, 6);
  EXPECT_DOUBLE_EQ(c.cells_pct, 100.0 * 11 / 14);
  EXPECT_EQ(c.points_unreached, std::vector<std::string>{"output.publish.before"});
  EXPECT_EQ(c.crash_states.total, 9);

  Report r = testing::SampleReport();
  for (Cell& cell : r.scenarios[1].cells) {
    if (cell.window == "checkpoint.commit.before#2") cell.outcome = CellOutcome::kNotRun;
  }
  c = ComputeCoverage(r);
  EXPECT_EQ(c.windows_exercised, 5);  // f2's only applicable cell no longer ran
  EXPECT_EQ(c.cells_exercised, 10);
}

TEST(ReportModelTest, EmptyReportHasZeroCoverageAndPasses) {
  Report r;
  Coverage c = ComputeCoverage(r);
  EXPECT_EQ(c.cells_total, 0);
  EXPECT_EQ(c.cells_pct, 0.0);
  EXPECT_EQ(ComputeVerdict(r), Verdict::kPass);
  r.min_coverage_pct = 1;
  EXPECT_EQ(ComputeVerdict(r), Verdict::kCoverageBelowMinimum);
}

TEST(ReportModelTest, EachKindOfFailureMakesTheVerdictViolation) {
  EXPECT_EQ(ComputeVerdict(Clean()), Verdict::kPass);
  EXPECT_EQ(VerdictExitCode(ComputeVerdict(Clean())), 0);
  EXPECT_EQ(ComputeVerdict(testing::SampleReport()), Verdict::kViolation);

  Report r = Clean();
  r.violations = testing::SampleReport().violations;
  EXPECT_EQ(ComputeVerdict(r), Verdict::kViolation);
  r = Clean();
  r.scenarios[1].cells[0].outcome = CellOutcome::kViolation;
  EXPECT_EQ(ComputeVerdict(r), Verdict::kViolation);
  r = Clean();
  r.properties[0].passed = false;
  EXPECT_EQ(ComputeVerdict(r), Verdict::kViolation);
  r = Clean();
  r.mutants[0].killed = false;
  EXPECT_EQ(ComputeVerdict(r), Verdict::kViolation);
  EXPECT_EQ(VerdictExitCode(Verdict::kViolation), 1);
  EXPECT_EQ(VerdictName(Verdict::kViolation), "violation");
}

TEST(ReportModelTest, CoverageBelowMinimumGivesExitThreeButViolationWins) {
  Report r = Clean();
  r.min_coverage_pct = 78.6;  // coverage is 78.57%
  EXPECT_EQ(ComputeVerdict(r), Verdict::kCoverageBelowMinimum);
  EXPECT_EQ(VerdictExitCode(ComputeVerdict(r)), 3);
  EXPECT_EQ(VerdictName(ComputeVerdict(r)), "coverage-below-minimum");
  r.min_coverage_pct = 78.5;
  EXPECT_EQ(ComputeVerdict(r), Verdict::kPass);
  r.min_coverage_pct = 99;
  r.mutants[0].killed = false;
  EXPECT_EQ(ComputeVerdict(r), Verdict::kViolation);
}

// Issue 30: a partial report (Ctrl-C) passes nothing, a coverage gate included; a violation it
// found still wins.
TEST(ReportModelTest, AnInterruptedReportIsNeverAPassAndExits130UnlessItFoundAViolation) {
  Report r = Clean();
  r.interrupted = "SIGINT";
  EXPECT_EQ(ComputeVerdict(r), Verdict::kInterrupted);
  EXPECT_EQ(VerdictExitCode(ComputeVerdict(r)), 130);
  EXPECT_EQ(VerdictName(ComputeVerdict(r)), "interrupted");
  r.min_coverage_pct = 1;  // coverage is far above it: still no pass
  EXPECT_EQ(ComputeVerdict(r), Verdict::kInterrupted);
  r.mutants[0].killed = false;
  EXPECT_EQ(ComputeVerdict(r), Verdict::kViolation);
}

// Issue 31: an incomplete recording is neither a pass nor a violation, whatever the cells say.
TEST(ReportModelTest, AnInconclusiveReportIsNeitherAPassNorAViolationAndExitsFive) {
  Report r = Clean();
  r.inconclusive = {"mmap-shared-write-untracked: data.bin"};
  EXPECT_EQ(ComputeVerdict(r), Verdict::kInconclusive);
  EXPECT_EQ(VerdictExitCode(ComputeVerdict(r)), 5);
  EXPECT_EQ(VerdictName(ComputeVerdict(r)), "inconclusive");
  r.mutants[0].killed = false;  // a violation does not outrank what was not seen
  EXPECT_EQ(ComputeVerdict(r), Verdict::kInconclusive);
}

TEST(ReportModelTest, ViolationsAreGroupedByScenarioInvariantAndKindWithTheSmallestPlanFirst) {
  Report r = testing::SampleReport();
  Violation bigger = r.violations[0];
  bigger.plan = "none;crash@fs.write[db]#1;powerloss@fs.rename[receipt]#1";
  Violation other_kind = r.violations[0];
  other_kind.window = "fs.fsync[checkpoint]#2";  // no business label: kind is the point
  r.violations = {bigger, r.violations[0], other_kind};
  std::vector<ViolationGroup> groups = GroupViolations(r);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].kind, "after published wait");
  EXPECT_EQ(groups[0].count, 2);
  EXPECT_EQ(groups[0].smallest->plan, "powerloss@fs.rename[receipt]#1");
  EXPECT_EQ(groups[1].kind, "fs.fsync[checkpoint]");
  EXPECT_EQ(groups[1].count, 1);
}

TEST(ReportModelTest, SmallerPlanCountsFaultsFirstThenTheText) {
  EXPECT_TRUE(SmallerPlan("powerloss@fs.rename[receipt]#1", "none;crash@a#1;crash@b#1"));
  EXPECT_FALSE(SmallerPlan("none;crash@a#1;crash@b#1", "powerloss@fs.rename[receipt]#1"));
  // One fault each: the shorter text, although a longer action name comes first alphabetically.
  EXPECT_TRUE(SmallerPlan("crash@fs.write[a]#1", "corrupt:bitflip@fs.write[a]#1"));
  EXPECT_FALSE(SmallerPlan("crash@a#1", "crash@a#1")) << "a strict order";
}

TEST(ReportModelTest, VerdictTableHasARowPerExploredVariantAndAColumnPerInvariant) {
  VerdictTable t = ComputeVerdictTable(testing::SampleReport());
  EXPECT_EQ(t.scenarios, (std::vector<std::string>{"approval", "fan-in",
                                                   "interactive-flow"}));  // skipped left out
  EXPECT_EQ(t.invariants,
            (std::vector<std::string>{"INV-ALO", "INV-IDEM", "INV-RECEIPT", "INV-TOPOLOGY",
                                      "INV-FLOW-LEASE", "INV-DETERMINISM"}));
  // The scenario explored by schedules has its row like the others: checks are schedules.
  EXPECT_EQ(t.cells[2][4].violations, 3);
  EXPECT_EQ(t.cells[2][1].checks, 40);
  EXPECT_EQ(t.cells[2][0].checks, -1);
  EXPECT_EQ(t.cells[0][2].violations, 1);
  EXPECT_EQ(t.cells[1][1].checks, -1);  // fan-in does not check INV-IDEM
  EXPECT_EQ(t.cells[1][3].checks, 1);
}

TEST(ReportModelTest, BenchEqualityTreatsNanAsEqualToNan) {
  Report a = testing::SampleReport(), b = testing::SampleReport();
  EXPECT_EQ(a, b);  // bench[2].ratio is NaN in both
  b.bench[2].ratio = 1.0;
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace stepfault::reports
