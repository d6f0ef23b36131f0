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

const std::vector<std::shared_ptr<const Scenario>>& ScheduleScenarios() {
  static const auto* list = new std::vector<std::shared_ptr<const Scenario>>{
      MakeInteractiveFlowScenario(),
  };
  return *list;
}

std::shared_ptr<const Scenario> FindScheduleScenario(const std::string& name) {
  for (const auto& s : ScheduleScenarios()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

bool IsScheduleScenario(const Scenario& s) {
  for (const auto& x : ScheduleScenarios()) {
    if (x.get() == &s) return true;
  }
  return false;
}

const std::vector<std::shared_ptr<const Scenario>>& AllScenarios() {
  static const auto* list = [] {
    auto* v = new std::vector<std::shared_ptr<const Scenario>>(BuiltinScenarios());
    v->insert(v->end(), ScheduleScenarios().begin(), ScheduleScenarios().end());
    return v;
  }();
  return *list;
}

}  // namespace stepfault::scenarios
