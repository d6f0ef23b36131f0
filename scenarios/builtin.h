// Factories of the built-in scenarios (one per scenario file) and the list that registry.cc keeps.
#pragma once

#include <memory>
#include <vector>

#include "scenarios/scenario.h"

namespace stepfault::scenarios {

std::shared_ptr<const Scenario> MakeFanInScenario();
std::vector<std::shared_ptr<const Scenario>> MakeBuiltinScenarios();

}  // namespace stepfault::scenarios
