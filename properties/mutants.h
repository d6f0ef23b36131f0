// Mutants: every hazard switch (engine, store, scenario host) is a known bug the harness must
// catch. For each mutant, exploration runs over the scenarios in order and stops at the first
// violation; that plan (one fault, or none when the fault-free run already breaks), the invariant
// it broke and its replay command are the mutant's kill. A mutant that survives is a defect of the
// harness. A second pass at depth 2 runs only for mutants depth 1 did not kill. The mutants of a
// scenario with several actors (interactive-flow's host:flow-*) are hunted by schedules instead:
// PCT from the root seed until the expected invariant breaks, at most kFlowMutantSchedules runs;
// the plan is the shrunk fault and the replay command carries the schedule. The mutants of the
// black-box crash model (blackbox:*, the hazards of faults/blackbox/crash_state.h) are hunted by
// its self-check instead: the crash-state catalogue run with the hazard on; the first
// disagreement is the kill (INV-BB-MODEL), its entry the plan, and the replay command is
// `stepfault blackbox conformance --hazard NAME --entry ENTRY`. Thread-safety: as Explore.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "properties/explorer.h"
#include "reports/report_model.h"

namespace stepfault::properties {

struct Mutant {
  std::string name;
  std::string description;
  std::function<void(RunConfig*)> apply;  // empty for a crash-model mutant (no run carries it)
  std::vector<std::string> expected;      // the invariant ids expected to kill it
  // A refinement of another mutant (its name; "" when none): a violation kills this mutant only
  // when the same plan does not break the same invariant with the base mutant alone, so the kill
  // is this mutant's own bug, not the one it builds on.
  std::string refines;
  // A mistake of a scenario with several actors (scenarios::ScheduleScenarios()): hunted by
  // schedule exploration (properties/explore_flow.h HuntScheduleMutant), not by plans.
  bool by_schedules = false;
  // A hazard of the black-box crash-state builder (faults::blackbox::CrashModelOptions, by name):
  // hunted by the crash-state catalogue (faults/blackbox/crash_catalogue.h), not by plans.
  std::string crash_model_hazard;
};

const std::vector<Mutant>& AllMutants();

// The mutants (hazards) switched on in `config`, by name, in table order: what `--hazard` takes.
std::vector<std::string> ActiveHazardNames(const RunConfig& config);

// Runs every mutant (or only `only` when non-empty) and returns one result each.
std::vector<reports::MutantResult> RunMutants(
    const ExploreOptions& base, const std::vector<std::string>& only,
    const std::function<void(int64_t, int64_t)>& progress);

// Hunts `chosen` (RunMutants' list; any mutants, e.g. a test's) in base.jobs worker processes
// (worker_pool.h), one result each in order. A worker that dies hunting a mutant (an abort, a
// signal) makes that mutant's result the harness's failure: not killed, verdict "harness-failed",
// invariant INV-HARNESS, `message` naming the mutant and the death, replay the `stepfault
// mutants --only NAME` command; the other mutants are hunted as usual. Inline (jobs <= 1) an
// abort ends the process.
std::vector<reports::MutantResult> HuntMutants(
    const std::vector<const Mutant*>& chosen, const ExploreOptions& base,
    const std::function<void(int64_t, int64_t)>& progress);

// The interactive-flow hazards (scenarios/interactive_flow/flow_hazards.h), hunted by schedule
// exploration (properties/explore_flow.h HuntScheduleMutant: PCT with faults, up to `schedules`
// runs of seed 1) instead of plans: plan is the shrunk fault, replay the `stepfault replay
// --scenario interactive-flow` command with the shrunk schedule. Seed 1; RunMutants hunts the same
// mutants from the root seed.
std::vector<reports::MutantResult> RunFlowScheduleMutants(int schedules);

}  // namespace stepfault::properties
