// The registry of built-in scenarios: every factory is declared here, the same way, and listed once
// in registry.cc in the order reports show them. Adding a scenario (docs/extending.md) means a
// folder with its files, one declaration below and one line in registry.cc; nothing else names it.
// Two kinds: scenarios with one host per life (BuiltinScenarios: the life runner explores them,
// properties/explorer.h) and scenarios with several actors in one world (ScheduleScenarios:
// explored by schedules, properties/explore_flow.h); AllScenarios lists both, for `list` and
// `explore --all`.
// Thread-safety: the list is built once, on first use, and immutable after.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// Each returns a new, immutable scenario object.
std::shared_ptr<const Scenario> MakeApprovalScenario();          // approval/
std::shared_ptr<const Scenario> MakeArtifactBoundaryScenario();  // artifact_boundary/
std::shared_ptr<const Scenario> MakeFanInScenario();             // fan_in/
std::shared_ptr<const Scenario> MakeRestorePruningScenario();    // restore_pruning/
// json/examples/state-shapes.json, compiled in (json/json_builtin.cc): the JSON scenario whose
// state changes in every shape across short delta chains and a live restore (issue 29).
std::shared_ptr<const Scenario> MakeJsonStateShapesScenario();
std::shared_ptr<const Scenario> MakeInteractiveFlowScenario();  // interactive_flow/ (schedules)

// The built-in one-host-per-life scenarios, in a fixed order; and one by name (nullptr when there
// is none).
const std::vector<std::shared_ptr<const Scenario>>& BuiltinScenarios();
std::shared_ptr<const Scenario> FindScenario(const std::string& name);

// The scenarios with several actors in one world, in a fixed order; one by name (nullptr when
// there is none); and whether `s` is one of them (by identity).
const std::vector<std::shared_ptr<const Scenario>>& ScheduleScenarios();
std::shared_ptr<const Scenario> FindScheduleScenario(const std::string& name);
bool IsScheduleScenario(const Scenario& s);

// BuiltinScenarios() then ScheduleScenarios().
const std::vector<std::shared_ptr<const Scenario>>& AllScenarios();

}  // namespace stepfault::scenarios
