// The registry of built-in scenarios: every factory is declared here, the same way, and listed once
// in registry.cc in the order reports show them. Adding a scenario (docs/extending.md) means a
// folder with its files, one declaration below and one line in registry.cc; nothing else names it.
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

// The built-in scenarios, in a fixed order; and one by name (nullptr when there is none).
const std::vector<std::shared_ptr<const Scenario>>& BuiltinScenarios();
std::shared_ptr<const Scenario> FindScenario(const std::string& name);

}  // namespace stepfault::scenarios
