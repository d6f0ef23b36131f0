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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto plan = stepfault::faults::ParsePlan(text);
  if (plan.ok()) {
    (void)stepfault::faults::CheckPlanPoints(*plan);
    const std::string printed = stepfault::faults::PrintPlan(*plan);
    auto again = stepfault::faults::ParsePlan(printed);
    SF_CHECK(again.ok());
    SF_CHECK(*again == *plan);
  }
  (void)stepfault::faults::KillTarget::Parse(text);
  auto bb = stepfault::faults::blackbox::ParsePlan(text);
  if (bb.ok()) {
    auto again =
        stepfault::faults::blackbox::ParsePlan(stepfault::faults::blackbox::PrintPlan(*bb));
    SF_CHECK(again.ok());
    SF_CHECK(*again == *bb);
  }
  auto flow = stepfault::scenarios::flow::ParseFlowPlan(text);
  if (flow.ok()) {
    auto again =
        stepfault::scenarios::flow::ParseFlowPlan(stepfault::scenarios::flow::FlowPlanText(*flow));
    SF_CHECK(again.ok());
    SF_CHECK(*again == *flow);
  }
  return 0;
}
