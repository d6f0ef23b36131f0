// The JSON scenarios compiled into the binary as built-in scenarios (registry.h): the text of the
// shipped example file itself (cmake/StepfaultEmbed.cmake), so the file a user reads is the
// scenario `explore --all` and the mutant hunt run.
#include <string_view>

#include "scenarios/json/json_scenario.h"
#include "scenarios/registry.h"

namespace stepfault::embedded {
extern const std::string_view kStateShapesScenarioJson;  // json/examples/state-shapes.json
}  // namespace stepfault::embedded

namespace stepfault::scenarios {

std::shared_ptr<const Scenario> MakeJsonStateShapesScenario() {
  // Named by its scenario name, so replay commands say `--scenario json-state-shapes` and work
  // from any directory; the file's path is in docs/scenarios.md.
  auto parsed = ParseJsonScenario(embedded::kStateShapesScenarioJson, "json-state-shapes");
  SF_CHECK(parsed.ok() && "scenarios/json/examples/state-shapes.json must parse");
  return *std::move(parsed);
}

}  // namespace stepfault::scenarios
