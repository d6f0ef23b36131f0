// libFuzzer target: the plan grammars on their one scanner (faults/plan_syntax.h): the in-process
// fault plan and its point registry check, the --crash-at target, the black-box plan and the
// interactive-flow plan.
// Promises under test: any text gives a plan or a typed error, never a crash; an accepted plan
// prints canonically and re-parses to itself.
// Thread-safety: libFuzzer calls it from one thread.
#include <cstddef>
#include <cstdint>

#include "faults/blackbox/plan.h"
#include "faults/kill_injector.h"
#include "faults/plan.h"
#include "faults/points.h"
#include "scenarios/interactive_flow/flow_plan.h"

namespace {

// An accepted text prints canonically and re-parses to the same value.
template <typename Parse, typename Print>
void CheckRoundTrip(std::string_view text, Parse parse, Print print) {
  auto value = parse(text);
  if (!value.ok()) return;
  auto again = parse(print(*value));
  SF_CHECK(again.ok());
  SF_CHECK(*again == *value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace sf = stepfault;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto plan = sf::faults::ParsePlan(text); plan.ok()) {
    (void)sf::faults::CheckPlanPoints(*plan);
  }
  CheckRoundTrip(text, sf::faults::ParsePlan, sf::faults::PrintPlan);
  (void)sf::faults::KillTarget::Parse(text);
  CheckRoundTrip(text, sf::faults::blackbox::ParsePlan, sf::faults::blackbox::PrintPlan);
  CheckRoundTrip(text, sf::scenarios::flow::ParseFlowPlan, sf::scenarios::flow::FlowPlanText);
  return 0;
}
