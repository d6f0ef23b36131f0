// libFuzzer target: the JSON scenario parser and its validation. Promise under test: any text
// gives a scenario or a typed error naming where it is wrong, never a crash; an accepted scenario
// can describe itself and build its workflow.
// Thread-safety: libFuzzer calls it from one thread.
#include <cstddef>
#include <cstdint>

#include "scenarios/json/json_scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto scenario = stepfault::scenarios::ParseJsonScenario(text, "fuzz.json");
  if (!scenario.ok()) return 0;
  (void)(*scenario)->name();
  (void)(*scenario)->invariants();
  (void)(*scenario)->RecoveryActions();
  (void)(*scenario)->default_params();
  (void)stepfault::scenarios::JsonScenarioExpectedOutputs(**scenario);
  return 0;
}
