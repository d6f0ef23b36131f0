// libFuzzer target: the fault-plan parser, the point registry check and the --crash-at parser.
// Promises under test: any text gives a plan or a typed error, never a crash; an accepted plan
// prints canonically and re-parses to itself.
// Thread-safety: libFuzzer calls it from one thread.
#include <cstddef>
#include <cstdint>

#include "faults/kill_injector.h"
#include "faults/plan.h"
#include "faults/points.h"

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
  return 0;
}
