// The coverage report model: what one Stepfault run found, independent of how it is written out.
//
// Exploration fills a Report; the writers (report_writer.h) render it as JSON, HTML, Markdown and
// JUnit XML, and MergeShards (merge.h) joins the Reports of a sharded run. The model holds no
// timestamps or durations, so the same run gives byte-identical reports.
// A matrix Cell is one (window, action) pair of one scenario. Outcomes: `kPass` (ran, every
// invariant held), `kViolation` (ran, an invariant broke), `kNotApplicable` (the action cannot
// apply at that window), `kNotRun` (applicable but not run in this shard, or beyond the depth),
// `kFiltered` (applicable, left out by --actions). Thread-safety:
// plain values; the free functions are pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stepfault::reports {

enum class CellOutcome { kPass, kViolation, kNotApplicable, kNotRun, kFiltered };

// "pass", "violation", "n/a", "not-run", "filtered": the spelling used by every format.
std::string_view CellOutcomeName(CellOutcome outcome);
// The inverse of CellOutcomeName; nullopt for any other text.
std::optional<CellOutcome> ParseCellOutcome(std::string_view name);
// True when the cell was actually run (pass or violation).
inline bool CellRan(CellOutcome o) {
  return o == CellOutcome::kPass || o == CellOutcome::kViolation;
}

// A window: the `occurrence`-th hit of `point` in a life running `command`, reached in any life of
// any run of the exploration.
struct Window {
  std::string id;  // command + ":" + point + "#" + occurrence, e.g. "start:fs.rename[receipt]#1"
  std::string point;
  int occurrence = 0;
  std::string business_window;  // "" when the scenario gives this window no business label
  bool recovery = false;        // absent from the fault-free run: found in a life after a death
  friend bool operator==(const Window&, const Window&) = default;
};

struct Cell {
  std::string window;  // a Window::id of the same scenario
  std::string action;  // one of the scenario's actions
  CellOutcome outcome = CellOutcome::kNotRun;
  int64_t runs = 0;
  int lives_max = 0;
  std::vector<std::string> invariants_violated;
  friend bool operator==(const Cell&, const Cell&) = default;
};

struct InvariantResult {
  std::string id;  // a stable invariant id, e.g. "INV-ALO"
  std::string statement;
  int64_t checks = 0;
  int64_t violations = 0;
  friend bool operator==(const InvariantResult&, const InvariantResult&) = default;
};

// Crash states: the worlds a death by the last fault of a plan left (after the crash model and any
// damage), told apart by SimFs::Digest and the life they were left in. Below the depth limit each
// distinct state's recovery lives are explored (every window of them crashed and powered off);
// `beyond_depth` counts deaths at the depth limit, whose recovery is run but not faulted again.
struct CrashStates {
  int64_t total = 0, distinct = 0, explored = 0, beyond_depth = 0;
  friend bool operator==(const CrashStates&, const CrashStates&) = default;
};

// A scenario with several actors in one world (interactive-flow) is explored by schedules, not by
// (window, action) cells: many runs of its actors under a scheduling strategy, most with one seeded
// fault (crash of one actor, power loss of the machine; the clock actor advances time in every
// run). Figures count what the runs did; `windows` is the number of distinct "actor@point"
// scheduling points reached under interleaving (`window_names`, sorted). There is no denominator:
// nothing enumerates the actor@point pairs a world can reach, so no percentage is derived, and the
// scenario contributes no cells to the coverage percentage.
// The bounded exhaustive phase a schedule exploration ran before its strategy (interactive-flow's
// default: iterative preemption bounding, no fault, state-hash pruned).
struct BoundedPhase {
  int max_preemptions = 0;
  int64_t schedules = 0;        // schedules it ran (the first of `explored`)
  bool complete = false;        // every schedule within max_preemptions was run
  int64_t distinct_states = 0;  // distinct state keys it branched from (its pruning set)
  std::vector<int64_t> runs_per_preemption_bound;  // index: preemptions
  friend bool operator==(const BoundedPhase&, const BoundedPhase&) = default;
};

struct ScheduleCoverage {
  std::string strategy;         // "pct", "random" or "dfs"
  int pct_depth = 0;            // PCT's depth d (0 for the other strategies)
  int64_t budget = 0;           // schedules asked for (runs)
  int64_t explored = 0;         // schedules run
  int64_t distinct_states = 0;  // distinct state keys at choice points (db, journal, actors) in
  int64_t states_counted_schedules = 0;  // the first this many schedules (keying costs ~10 runs)
  int64_t distinct_final_worlds = 0;     // distinct final worlds after recovery
  int64_t scheduling_points = 0;         // points at which the scheduler ran (every actor step)
  int64_t context_switches = 0;          // choices that switched to another actor
  int64_t faults_fired = 0;              // runs whose seeded crash or power loss fired
  int64_t windows = 0;                   // distinct actor@point reached
  std::vector<std::string> window_names;
  std::optional<BoundedPhase> bounded;  // when a bounded exhaustive phase ran first
  friend bool operator==(const ScheduleCoverage&, const ScheduleCoverage&) = default;
};

// One explored scenario variant: a scenario under one parameter set and checkpoint store.
struct ScenarioReport {
  std::string name;     // the scenario, plus " [label]" for a variant other than the default
  std::string variant;  // "" for the default; else what differs ("choice=reject", "store=sqlite")
  std::string skipped;  // why the variant was not explored ("" when it was)
  std::string description;
  std::vector<std::string> invariants;
  std::vector<std::string> actions;  // matrix columns, in display order
  std::vector<Window> windows;       // matrix rows, in fault-free-run order
  std::vector<Cell> cells;
  std::vector<InvariantResult> invariant_results;
  CrashStates crash_states;
  std::vector<std::string> points_reached;  // registered point names hit in any life, sorted
  int64_t determinism_checks = 0;           // runs repeated to compare trace and final world
  int64_t runs = 0;
  int64_t lives = 0;
  // Present only for a scenario explored by schedules (then actions, windows and cells are empty
  // and `runs` counts schedules).
  std::optional<ScheduleCoverage> schedules;
  friend bool operator==(const ScenarioReport&, const ScenarioReport&) = default;
};

// A counterexample: the minimal plan that broke an invariant and the command that replays it.
struct Violation {
  std::string scenario, invariant, window, action, plan, replay, message, rapidcheck_reproduce;
  uint64_t seed = 0;
  // Black-box only: the persistence models under which the plan still violates the invariant
  // ("posix", "ext4-ordered", ...; docs/blackbox.md); empty when not labelled.
  std::vector<std::string> holds_under;
  std::string failure;  // the class of failure it is grouped by ("": by the kind of window)
  friend bool operator==(const Violation&, const Violation&) = default;
};
// "posix only", or the models joined by ", " ("" for none): how reports print holds_under.
std::string HoldsUnderText(const std::vector<std::string>& holds_under);

struct PropertyResult {
  std::string name, scenario, invariant;
  int64_t cases = 0;
  bool passed = true;
  std::string plan, replay, rapidcheck_reproduce, message;  // the counterexample when !passed
  friend bool operator==(const PropertyResult&, const PropertyResult&) = default;
};

// A deliberately broken engine (hazard profile); it must be killed by some invariant.
struct MutantResult {
  std::string name, description, scenario;
  bool killed = false;
  std::string invariant, plan, replay;  // what killed it; empty when it survived
  std::vector<std::string> expected;    // the invariants the mutant is expected to be killed by
  // "killed-as-expected" (one of `expected` killed it), "killed-by-another", "survived", or
  // "harness-failed" (not killed: the worker hunting it died; invariant INV-HARNESS, `message` says
  // how, `replay` hunts it again).
  std::string verdict;
  std::string message;  // why the harness failed (verdict harness-failed), else ""
  friend bool operator==(const MutantResult&, const MutantResult&) = default;
};

struct BenchResult {
  std::string name;    // the full benchmark name, e.g. "BM_Checkpoint/store:sqlite/k=8"
  std::string family;  // name up to the first '/'
  double median_ns = 0;
  double ratio = 0;  // NaN when absent
  std::map<std::string, std::string> labels;
  // NaN compares equal to NaN here, so a round-tripped report equals the original.
  friend bool operator==(const BenchResult& a, const BenchResult& b);
};

struct Report {
  int schema_version = 4;
  std::string command;
  uint64_t seed = 0;
  std::string profile;
  std::vector<std::string> hazards;
  // Black-box only: the persistence model the crash states were built under ("posix", ...); ""
  // for every other report (then absent from report.json).
  std::string fs_model;
  int depth = 1;
  std::string shard = "1/1";
  double min_coverage_pct = 0;
  std::vector<std::string> points_registered;  // every registered fault point name (explore)
  std::vector<std::string> actions_filtered;   // action kinds --actions left out
  std::vector<ScenarioReport> scenarios;
  std::vector<Violation> violations;
  std::vector<PropertyResult> properties;
  std::vector<MutantResult> mutants;
  std::vector<BenchResult> bench;
  int64_t runs = 0;
  int64_t lives = 0;
  // Non-empty when the run was interrupted (the signal's name, "SIGINT"): the report is partial,
  // holding only what was done; the rest is "not run" or skipped saying so. A partial report never
  // passes a coverage gate.
  std::string interrupted;
  // Non-empty when the run's recording was incomplete (black-box mode: the recorder saw I/O it
  // cannot model, or the replay of the trace does not give the directory the run left): what was
  // not seen, one reason each, with the file. No cell ran; the verdict is inconclusive.
  std::vector<std::string> inconclusive;
  friend bool operator==(const Report&, const Report&) = default;
};

struct Coverage {
  int64_t windows_total = 0;      // windows discovered (fault-free + recovery)
  int64_t recovery_windows = 0;   // of which found only in lives after a death
  int64_t windows_exercised = 0;  // windows where at least one action ran
  int64_t cells_total = 0;        // discovered windows x applicable actions (filtered included)
  int64_t cells_exercised = 0, cells_filtered = 0, cells_not_run = 0;
  double cells_pct = 0;  // 100 * cells_exercised / cells_total; 0 when there are no cells
  CrashStates crash_states;
  int64_t determinism_checks = 0;
  std::vector<std::string> points_reached, points_unreached;  // registered names, sorted
  std::vector<std::string> actions_run;                       // action columns that ran, sorted
  friend bool operator==(const Coverage&, const Coverage&) = default;
};

// n/a cells are not counted in cells_total; filtered and not-run cells are; a cell is exercised
// when it ran (pass or violation); a window is exercised when any of its cells ran. Skipped
// variants count nothing. points_unreached is empty for a scenario alone.
Coverage ComputeCoverage(const Report& report);
Coverage ComputeCoverage(const ScenarioReport& scenario);

// The order of counterexamples by size: fewer faults in the plan (its `@`s), then the shorter plan
// text. What an exhaustive run reports as its smallest counterexample (the groups below, the mutant
// hunt); faults/shrink.h says how the searches shrink.
bool SmallerPlan(const std::string& a, const std::string& b);

// Counterexamples grouped by (scenario, invariant, kind): the kind is the violation's failure
// class when it has one (black-box mode), else the kind of window: the window's business window
// when the scenario names one, else its life command ("resume (unlabelled windows)");
// "fault-free" for the reference run. Groups are ordered
// like the scenarios, then by invariant and kind; `smallest` is the first violation no other is
// SmallerPlan than.
struct ViolationGroup {
  std::string scenario, invariant, kind;
  int64_t count = 0;
  const Violation* smallest = nullptr;
};
std::vector<ViolationGroup> GroupViolations(const Report& report);

// The verdict table: one row per explored scenario variant, one column per invariant any of them
// declares or violated (registry order as first seen), each cell the checks and violations
// (checks < 0: the scenario does not check that invariant).
struct VerdictCell {
  int64_t checks = -1, violations = 0;
};
struct VerdictTable {
  std::vector<std::string> invariants;
  std::vector<std::string> scenarios;
  std::vector<std::vector<VerdictCell>> cells;  // [scenario][invariant]
};
VerdictTable ComputeVerdictTable(const Report& report);

enum class Verdict { kPass, kViolation, kCoverageBelowMinimum, kInterrupted, kInconclusive };

// kInconclusive when the report is (`inconclusive` non-empty: an incomplete recording can give
// neither a pass nor a violation); otherwise kViolation when any violation is listed, any cell is a
// violation, any property failed or any mutant survived (the harness failed to catch a known bug);
// otherwise kInterrupted when the run was (a partial report passes nothing, a coverage gate
// included); otherwise kCoverageBelowMinimum when min_coverage_pct > 0 and cells_pct is below it;
// otherwise kPass.
Verdict ComputeVerdict(const Report& report);
// "pass", "violation", "coverage-below-minimum", "interrupted", "inconclusive".
std::string_view VerdictName(Verdict verdict);
// The process exit status of the command line: 0, 1, 3, 130, 5 (scenarios/exit_codes.h).
int VerdictExitCode(Verdict verdict);

// The report's title: its command as the user typed it ("stepfault blackbox explore ..."), or
// "Stepfault <command>" when the command does not name the tool itself (a test's "explore").
std::string ReportTitle(const Report& report);

}  // namespace stepfault::reports
