// Plan checks of the replay command: a plan must name registered points where its actions apply
// (faults::CheckPlanPoints), every point it names must be reached by the scenario's fault-free run,
// and after the run every armed fault must have fired. A plan that tests nothing is an error, never
// a silent pass (issue 16, item 1).
// Thread-safety: the functions run the scenario (one RunPlan at a time per process).
#pragma once

#include <string>
#include <vector>

#include "faults/plan.h"
#include "properties/life_runner.h"
#include "scenarios/scenario.h"

namespace stepfault::cli {

// Ok, or kInvalidArgument naming the first fault whose point is unknown, does not take its action,
// or is never reached by `scenario`'s fault-free run, with the points that run reaches.
Status CheckPlanForScenario(const faults::Plan& plan, const scenarios::Scenario& scenario,
                            const properties::RunConfig& config);

// One line per armed fault of `plan` that did not fire in `ex` ("fault 2 'crash@x#3' never fired:
// ..."); empty when every fault fired.
std::vector<std::string> FaultsNeverFired(const faults::Plan& plan,
                                          const properties::Execution& ex);

}  // namespace stepfault::cli
