// Random fault schedules (docs/design.md §5, the property-based half of exploration): RapidCheck
// generates a scenario's parameters and a multi-life fault plan, the life runner runs it, and a
// failure shrinks to a minimal plan (fewer faults, earlier lives, earlier windows, plainer actions)
// that replays from the command line.
//
// Generators:
//  - GenScenarioParams: every parameter the scenario declares, drawn from its declaration (range,
//    choices, ParamDecl::sample_max; valid operator input only): no scenario is named here.
//  - GenFaultPlan: 1..3 faults in lives 1..4 (the others 'none'), each an applicable action at a
//    window that really exists: the fault-free run's windows for those parameters are recorded
//    once, when the generator is built; a first-life fault picks a window of the first life, a
//    later-life fault any window of the fault-free run or a generic one
//    (checkpoint.commit.after#1, host.resume#1, ...). A plan is generated as a fixed vector of
//    (used, life, window index, action index) choices and mapped, so RapidCheck's own element
//    shrinking drives it towards fewer faults, earlier lives, earlier windows and crash.
//    Shrinking the parameters moves the windows, so a shrunk plan is minimal in RapidCheck's sense
//    (no single shrink step still fails), not globally smallest.
//
// CheckScenario runs the property "no invariant is violated" through rc::detail::checkProperty
// with the given seed and number of cases, quietly (no RapidCheck output), and returns the minimal
// counterexample (the last failing case RapidCheck tried while shrinking is the minimal one), its
// replay command and RapidCheck's reproduce string. Everything is a function of the options:
// the same options give an equal CheckResult (RC_PARAMS is not read: CheckOptions::reproduce
// takes the reproduce string instead, for the check id "stepfault/<scenario>").
// Thread-safety: like RunPlan, one check at a time per process.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <string>

#include "faults/plan.h"
#include "properties/life_runner.h"
#include "reports/report_model.h"
#include "scenarios/scenario.h"

namespace stepfault::properties {

// Parameters in the scenario's domain: fan-in width 1..8 and payload_bytes 0..2048; approval a
// non-empty draft (unicode included), choice approve|reject, a valid comment of 1..500 code points
// with the boundary lengths 1, 2, 499, 500 favoured, multi-byte UTF-8 and emoji; both with a
// checkpoint shape, full or incremental with a full snapshot every K = 1..5 commits or the
// default K (short delta chains crashed with their bases, issue 29). Other scenarios: their
// default parameters (json-state-shapes fixes K = 3 in its file). The scenario must outlive the
// generator.
rc::Gen<Json> GenScenarioParams(const scenarios::Scenario& scenario);

// A plan of 1..3 faults for `params` (null: the defaults) under `config` (its params are ignored).
// Runs the fault-free reference once, now. The scenario must outlive the generator.
// REQUIRES: the fault-free run hits at least one window in its first life.
rc::Gen<faults::Plan> GenFaultPlan(const scenarios::Scenario& scenario, const Json& params,
                                   const RunConfig& config);

// The replay command of `plan` with `params`; adds --params '<json>' when they differ from the
// scenario's defaults.
std::string ReplayCommandWithParams(const scenarios::Scenario& scenario, const faults::Plan& plan,
                                    const RunConfig& config, const Json& params);

struct CheckOptions {
  uint64_t seed = 0;  // RapidCheck's seed (the run's seed is config.seed)
  int cases = 100;    // successful cases before the property counts as holding
  RunConfig config;   // profile, hazards, run seed; config.params is ignored (generated)
  // A CheckResult::reproduce string ("... reproduce=... ..."): replay that one case (and its
  // shrinking path) instead of searching. Empty: search. A string that does not parse or has no
  // case of this scenario gives a failed result (cases 0) whose message says so.
  std::string reproduce;
};

struct CheckResult {
  int64_t cases = 0;  // cases run, the failing one included
  bool passed = true;
  // The minimal counterexample when !passed (message alone when RapidCheck gave up or erred).
  std::string invariant;  // the first violated invariant
  std::string plan;       // PrintPlan text
  Json params;            // the generated scenario parameters
  std::string replay;     // stepfault replay ... [--params '<json>']
  std::string reproduce;  // RC_PARAMS value, e.g. "reproduce=BAAA..."
  std::string message;    // every violation of the minimal case
  friend bool operator==(const CheckResult&, const CheckResult&) = default;
};

// REQUIRES: options.cases >= 1.
CheckResult CheckScenario(const scenarios::Scenario& scenario, const CheckOptions& options);

// The report model's view of a check, named `name` (e.g. "random-schedules").
reports::PropertyResult ToPropertyResult(const std::string& name,
                                         const scenarios::Scenario& scenario,
                                         const CheckResult& result);

}  // namespace stepfault::properties
