// The built-in scenarios, in the order reports list them.
#include "scenarios/builtin.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

const std::vector<std::shared_ptr<const Scenario>>& BuiltinScenarios() {
  static const auto* list =
      new std::vector<std::shared_ptr<const Scenario>>(MakeBuiltinScenarios());
  return *list;
}

std::shared_ptr<const Scenario> FindScenario(const std::string& name) {
  for (const auto& s : BuiltinScenarios()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

}  // namespace stepfault::scenarios
