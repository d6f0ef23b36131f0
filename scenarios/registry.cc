// The built-in scenarios (see registry.h), in the order reports list them.
#include "scenarios/registry.h"

namespace stepfault::scenarios {

const std::vector<std::shared_ptr<const Scenario>>& BuiltinScenarios() {
  static const auto* list = new std::vector<std::shared_ptr<const Scenario>>{
      MakeApprovalScenario(),       MakeArtifactBoundaryScenario(), MakeFanInScenario(),
      MakeRestorePruningScenario(), MakeJsonStateShapesScenario(),
  };
  return *list;
}

std::shared_ptr<const Scenario> FindScenario(const std::string& name) {
  for (const auto& s : BuiltinScenarios()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

const std::vector<std::shared_ptr<const ScheduleScenario>>& ScheduleScenarios() {
  static const auto* list = new std::vector<std::shared_ptr<const ScheduleScenario>>{
      MakeInteractiveFlowScenario(),
  };
  return *list;
}

std::shared_ptr<const ScheduleScenario> FindScheduleScenario(const std::string& name) {
  for (const auto& s : ScheduleScenarios()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

const std::vector<std::shared_ptr<const ScenarioInfo>>& AllScenarios() {
  static const auto* list = [] {
    auto* v = new std::vector<std::shared_ptr<const ScenarioInfo>>(BuiltinScenarios().begin(),
                                                                   BuiltinScenarios().end());
    v->insert(v->end(), ScheduleScenarios().begin(), ScheduleScenarios().end());
    return v;
  }();
  return *list;
}

}  // namespace stepfault::scenarios
