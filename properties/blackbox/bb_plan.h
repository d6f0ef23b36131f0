// Black-box fault plans: the plan grammar of faults/plan.h, over black-box windows.
//   plan   := fault (';' fault)*          one fault per life: the run, then the first recovery
//   fault  := action '@' point '#' N
//   action := crash | powerloss | reorder | ioerror | ioerror:EIO | ioerror:ENOSPC
//   point  := name '[' role ']'           e.g. fs.rename[data/state.json], proc.exit[cmd1]
// A role is the path relative to the directory under test, so it may hold '/', '.' and '-'.
// Thread-safety: values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace stepfault::properties::blackbox {

struct BbFault {
  std::string action;  // crash, powerloss, reorder, ioerror (EIO), ioerror:ENOSPC
  std::string window;  // point#N
  friend bool operator==(const BbFault&, const BbFault&) = default;
};

// The actions exploration knows, in matrix order.
const std::vector<std::string>& AllBbActions();
bool IsCrashLike(const std::string& action);  // built from the trace (crash, powerloss, reorder)

Result<std::vector<BbFault>> ParseBbPlan(std::string_view text);
std::string PrintBbPlan(const std::vector<BbFault>& plan);

}  // namespace stepfault::properties::blackbox
