#include "faults/fault_hook.h"

namespace stepfault::faults {
std::string_view DeathKindName(DeathKind kind) {
  switch (kind) {
    case DeathKind::kCrash:
      return "crash";
    case DeathKind::kPowerLoss:
      return "powerloss";
    case DeathKind::kExit:
      return "exit";
  }
  return "unknown";
}
}  // namespace stepfault::faults
