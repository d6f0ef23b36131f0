// The built-in scenarios (see registry.h), in the order reports list them.
#include "scenarios/registry.h"

namespace stepfault::scenarios {

const std::vector<std::shared_ptr<const Scenario>>& BuiltinScenarios() {
  static const auto* list = new std::vector<std::shared_ptr<const Scenario>>{
      MakeApprovalScenario(),
      MakeArtifactBoundaryScenario(),
      MakeFanInScenario(),
      MakeRestorePruningScenario(),
  };
  return *list;
}

std::shared_ptr<const Scenario> FindScenario(const std::string& name) {
  for (const auto& s : BuiltinScenarios()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

}  // namespace stepfault::scenarios
