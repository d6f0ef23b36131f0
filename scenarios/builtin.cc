// The list of built-in scenarios.
#include "scenarios/builtin.h"

#include "scenarios/approval.h"
#include "scenarios/artifact_boundary.h"
#include "scenarios/restore_pruning.h"

namespace stepfault::scenarios {

std::vector<std::shared_ptr<const Scenario>> MakeBuiltinScenarios() {
  return {MakeApprovalScenario(), MakeArtifactBoundaryScenario(), MakeFanInScenario(),
          MakeRestorePruningScenario()};
}

}  // namespace stepfault::scenarios
