// The list of built-in scenarios.
#include "scenarios/builtin.h"

#include "scenarios/approval.h"

namespace stepfault::scenarios {

std::vector<std::shared_ptr<const Scenario>> MakeBuiltinScenarios() {
  return {MakeApprovalScenario(), MakeFanInScenario()};
}

}  // namespace stepfault::scenarios
