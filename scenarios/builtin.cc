// The list of built-in scenarios.
#include "scenarios/builtin.h"

namespace stepfault::scenarios {

std::vector<std::shared_ptr<const Scenario>> MakeBuiltinScenarios() {
  return {MakeFanInScenario()};
}

}  // namespace stepfault::scenarios
