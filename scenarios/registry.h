// The registry of built-in scenarios: every factory is declared here, the same way, and listed once
// in registry.cc in the order reports show them. Adding a scenario (docs/extending.md) means a
// folder with its files, one declaration below and one line in registry.cc; nothing else names it.
// Two kinds, held typed: scenarios with one host per life (BuiltinScenarios, each a Scenario: the
// life runner explores them, properties/explorer.h) and scenarios with several actors in one world
// (ScheduleScenarios, each a ScheduleScenario: explored by schedules, properties/explore_flow.h);
// AllScenarios lists both as ScenarioInfo, for `list`, `explore --all` and the mutant table, which
// branch on the kind each one says it is.
// Thread-safety: the list is built once, on first use, and immutable after.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "scenarios/schedule_scenario.h"

namespace stepfault::scenarios {

// Each returns a new, immutable scenario object.
std::shared_ptr<const Scenario> MakeApprovalScenario();          // approval/
std::shared_ptr<const Scenario> MakeArtifactBoundaryScenario();  // artifact_boundary/
std::shared_ptr<const Scenario> MakeFanInScenario();             // fan_in/
std::shared_ptr<const Scenario> MakeRestorePruningScenario();    // restore_pruning/
// json/examples/state-shapes.json, compiled in (json/json_builtin.cc): the JSON scenario whose
// state changes in every shape across short delta chains and a live restore (issue 29).
std::shared_ptr<const Scenario> MakeJsonStateShapesScenario();
std::shared_ptr<const ScheduleScenario> MakeInteractiveFlowScenario();  // interactive_flow/

// The built-in one-host-per-life scenarios, in a fixed order; and one by name (nullptr when there
// is none).
const std::vector<std::shared_ptr<const Scenario>>& BuiltinScenarios();
std::shared_ptr<const Scenario> FindScenario(const std::string& name);

// The scenarios with several actors in one world, in a fixed order; and one by name (nullptr when
// there is none).
const std::vector<std::shared_ptr<const ScheduleScenario>>& ScheduleScenarios();
std::shared_ptr<const ScheduleScenario> FindScheduleScenario(const std::string& name);

// BuiltinScenarios() then ScheduleScenarios(), as what every scenario has (ScenarioInfo: ask it
// for its kind).
const std::vector<std::shared_ptr<const ScenarioInfo>>& AllScenarios();

}  // namespace stepfault::scenarios
