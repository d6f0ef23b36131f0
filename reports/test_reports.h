// Hand-built Report models shared by the reports/ tests (header-only; tests only).
//
// SampleReport covers every cell outcome (filtered included), a recovery window, crash states, a
// skipped variant, a scenario explored by schedules (no cells, a schedules block, a violated
// invariant), a violation with its counterexample, a passed and a failed property, a killed
// and a surviving mutant and benchmark rows (one without a ratio), so the golden files exercise
// every part of every writer.
#pragma once

#include <cstdlib>
#include <limits>
#include <string>

#include "engine/env.h"
#include "reports/report_model.h"
#include "tools/testing/test_env.h"

namespace stepfault::reports::testing {

inline Window MakeWindow(std::string point, int occurrence, std::string business) {
  return Window{.id = point + "#" + std::to_string(occurrence),
                .point = point,
                .occurrence = occurrence,
                .business_window = std::move(business)};
}

inline Cell MakeCell(const Window& w, std::string action, CellOutcome outcome, int64_t runs,
                     int lives_max, std::vector<std::string> violated = {}) {
  return Cell{.window = w.id,
              .action = std::move(action),
              .outcome = outcome,
              .runs = runs,
              .lives_max = lives_max,
              .invariants_violated = std::move(violated)};
}

inline Report SampleReport() {
  Report r;
  r.command = "explore";
  r.seed = 42;
  r.profile = "strict";
  r.hazards = {};
  r.depth = 2;
  r.min_coverage_pct = 50;

  ScenarioReport a;
  a.name = "approval";
  a.description = "Demo320: prepare -> approve (request port) -> apply & commit";
  a.invariants = {"INV-ALO", "INV-IDEM", "INV-RECEIPT"};
  a.actions = {"crash", "powerloss", "ioerror"};
  Window w1 = MakeWindow("fs.rename[receipt]", 1, "after published wait");
  Window w2 = MakeWindow("effect.commit.after", 1, "after commit before engine completion");
  Window w3 = MakeWindow("fs.fsync[checkpoint]", 2, "");
  Window w4 = MakeWindow("resume:fs.write[journal]", 1, "");
  w4.recovery = true;
  a.windows = {w1, w2, w3, w4};
  using O = CellOutcome;
  a.cells = {MakeCell(w1, "crash", O::kPass, 3, 2),
             MakeCell(w1, "powerloss", O::kViolation, 2, 3, {"INV-RECEIPT"}),
             MakeCell(w1, "ioerror", O::kPass, 1, 1),
             MakeCell(w2, "crash", O::kPass, 1, 2),
             MakeCell(w2, "powerloss", O::kPass, 1, 2),
             MakeCell(w2, "ioerror", O::kNotApplicable, 0, 0),
             MakeCell(w3, "crash", O::kNotRun, 0, 0),
             MakeCell(w3, "powerloss", O::kPass, 4, 2),
             MakeCell(w3, "ioerror", O::kNotRun, 0, 0),
             MakeCell(w4, "crash", O::kPass, 2, 3),
             MakeCell(w4, "powerloss", O::kPass, 2, 3),
             MakeCell(w4, "ioerror", O::kFiltered, 0, 0)};
  a.invariant_results = {{.id = "INV-ALO",
                          .statement = "every effect of the reference run exists",
                          .checks = 12,
                          .violations = 0},
                         {.id = "INV-IDEM",
                          .statement = "each operation id has at most one effect row",
                          .checks = 12,
                          .violations = 0},
                         {.id = "INV-RECEIPT",
                          .statement = "a published receipt survives power loss intact",
                          .checks = 12,
                          .violations = 1}};
  a.crash_states = CrashStates{.total = 9, .distinct = 6, .explored = 6, .beyond_depth = 4};
  a.points_reached = {"effect.commit.after", "fs.fsync", "fs.rename", "fs.write"};
  a.determinism_checks = 2;
  a.runs = 12;
  a.lives = 27;

  ScenarioReport f;
  f.name = "fan-in";
  f.description = "fan-out to 3 workers, fan-in barrier, sink";
  f.invariants = {"INV-ALO", "INV-TOPOLOGY"};
  f.actions = {"crash", "topology:edge-order"};
  Window f1 = MakeWindow("checkpoint.commit.before", 1, "barrier half full");
  Window f2 = MakeWindow("checkpoint.commit.before", 2, "");
  f.windows = {f1, f2};
  f.cells = {MakeCell(f1, "crash", O::kPass, 1, 2),
             MakeCell(f1, "topology:edge-order", O::kPass, 1, 2),
             MakeCell(f2, "crash", O::kPass, 1, 2),
             MakeCell(f2, "topology:edge-order", O::kNotApplicable, 0, 0)};
  f.invariant_results = {{.id = "INV-ALO",
                          .statement = "every effect of the reference run exists",
                          .checks = 3,
                          .violations = 0},
                         {.id = "INV-TOPOLOGY",
                          .statement = "an incompatible workflow is rejected",
                          .checks = 1,
                          .violations = 0}};
  f.points_reached = {"checkpoint.commit.before"};
  f.runs = 3;
  f.lives = 6;
  ScenarioReport skipped;
  skipped.name = "fan-in [store=sqlite]";
  skipped.variant = "store=sqlite";
  skipped.skipped = "indistinct: its fault-free run is identical to 'fan-in'";
  skipped.description = f.description;
  ScenarioReport flow;
  flow.name = "interactive-flow";
  flow.description = "several actors in one world";
  flow.invariants = {"INV-FLOW-LEASE", "INV-IDEM", "INV-DETERMINISM"};
  flow.invariant_results = {{.id = "INV-FLOW-LEASE",
                             .statement = "never two live lease holders",
                             .checks = 40,
                             .violations = 3},
                            {.id = "INV-IDEM",
                             .statement = "each operation id has at most one effect row",
                             .checks = 40,
                             .violations = 0},
                            {.id = "INV-DETERMINISM",
                             .statement = "same seed, same schedules",
                             .checks = 1,
                             .violations = 0}};
  flow.points_reached = {"fs.write"};
  flow.determinism_checks = 1;
  flow.runs = 40;
  flow.schedules = ScheduleCoverage{
      .strategy = "pct",
      .pct_depth = 3,
      .budget = 40,
      .explored = 40,
      .distinct_states = 1234,
      .states_counted_schedules = 10,
      .distinct_final_worlds = 17,
      .scheduling_points = 9000,
      .context_switches = 321,
      .faults_fired = 19,
      .windows = 3,
      .window_names = {"clock@time:advance", "worker-a@fs.write[db]", "worker-a@worker.claim"},
      .bounded = BoundedPhase{.max_preemptions = 2,
                              .schedules = 16,
                              .complete = false,
                              .distinct_states = 345,
                              .runs_per_preemption_bound = {1, 15}}};
  r.scenarios = {a, f, skipped, flow};
  r.points_registered = {
      "checkpoint.commit.before", "effect.commit.after", "fs.fsync", "fs.rename", "fs.write",
      "output.publish.before"};
  r.actions_filtered = {"corrupt"};

  r.violations = {
      Violation{
          .scenario = "approval",
          .invariant = "INV-RECEIPT",
          .window = w1.id,
          .action = "powerloss",
          .plan = "powerloss@fs.rename[receipt]#1",
          .replay = "stepfault replay approval --plan 'powerloss@fs.rename[receipt]#1' --seed 42",
          .message =
              "receipt wait-0001 torn after power loss: expected 64 bytes, found 17 <partial>",
          .rapidcheck_reproduce = "",
          .seed = 42},
      Violation{.scenario = "interactive-flow",
                .invariant = "INV-FLOW-LEASE",
                .window = "schedule with a crash",
                .action = "schedule",
                .plan = "crash:b@3",
                .replay = "stepfault replay interactive-flow --plan crash:b@3 "
                          "--schedule 'a1b2c3' --hazard host:flow-x",
                .message = "two live lease holders at tick 12",
                .rapidcheck_reproduce = "",
                .seed = 42}};
  r.properties = {
      PropertyResult{.name = "RandomPlansKeepAtLeastOnce",
                     .scenario = "approval",
                     .invariant = "INV-ALO",
                     .cases = 100,
                     .passed = true},
      PropertyResult{.name = "RandomPlansKeepReceipts",
                     .scenario = "approval",
                     .invariant = "INV-RECEIPT",
                     .cases = 37,
                     .passed = false,
                     .plan = "crash@fs.write[db]#3;powerloss@fs.rename[receipt]#1",
                     .replay = "stepfault replay approval --plan "
                               "'crash@fs.write[db]#3;powerloss@fs.rename[receipt]#1' --seed 7",
                     .rapidcheck_reproduce = "BchVZtVZuBXYwRHdvBXY",
                     .message = "receipt wait-0001 missing after recovery"}};
  r.mutants = {MutantResult{.name = "fresh-resume",
                            .description = "resume starts a fresh run instead of restoring",
                            .scenario = "approval",
                            .killed = true,
                            .invariant = "INV-IDEM",
                            .plan = "fail-after-write@effect.commit.after#1",
                            .replay = "stepfault replay approval --profile fresh-resume --plan "
                                      "'fail-after-write@effect.commit.after#1' --seed 42"},
               MutantResult{.name = "host:flow-x",
                            .description = "the lease is not checked on claim",
                            .scenario = "interactive-flow",
                            .killed = true,
                            .invariant = "INV-FLOW-LEASE",
                            .plan = "none",
                            .replay = "stepfault replay interactive-flow --plan none --schedule "
                                      "'a3b1' --hazard host:flow-x",
                            .expected = {"INV-FLOW-LEASE"},
                            .verdict = "killed-as-expected"},
               MutantResult{.name = "skip-dirsync",
                            .description = "publish receipts without syncing the directory",
                            .scenario = "approval",
                            .killed = false}};
  r.bench = {BenchResult{.name = "BM_Checkpoint/store:file/k=8",
                         .family = "BM_Checkpoint",
                         .median_ns = 125000,
                         .ratio = 1.0,
                         .labels = {{"store", "file"}, {"k", "8"}}},
             BenchResult{.name = "BM_Checkpoint/store:sqlite/k=8",
                         .family = "BM_Checkpoint",
                         .median_ns = 480500.5,
                         .ratio = 3.844,
                         .labels = {{"store", "sqlite"}, {"k", "8"}}},
             BenchResult{.name = "BM_Restore/64",
                         .family = "BM_Restore",
                         .median_ns = 2300,
                         .ratio = std::numeric_limits<double>::quiet_NaN(),
                         .labels = {{"arg0", "64"}}}};
  r.runs = 55;
  r.lives = 33;
  return r;
}

using test_env::SourceDir;

}  // namespace stepfault::reports::testing
