// Black-box fault plans: the plan language of faults/plan.h over the windows of a recorded trace
// (trace.h TraceWindow), read with the plan scanner (faults/plan_syntax.h).
//   plan   := fault (';' fault)?          one fault per life: the run, then the first recovery
//   fault  := action '@' point '[' role ']' '#' N
//   action := crash | powerloss | reorder | ioerror | ioerror:EIO | ioerror:ENOSPC
//   point  := [a-z0-9._-]+                 e.g. fs.rename, fs.fsync, proc.exit
//   role   := [^];]+                       the path relative to the directory under test, or the
//                                          command (proc.exit[cmd1]); any character but ']', ';'
//                                          and control characters
//   N      := the window's occurrence, 1.. without leading zeros
// e.g. powerloss@fs.rename[data/state.json.tmp]#3;crash@fs.write[app.db]#1.
//
// Promises: PrintPlan(ParsePlan(t)) == t for canonical t (the one non-canonical spelling accepted
// is "ioerror:EIO", which prints as "ioerror"); ParsePlan rejects anything else with
// InvalidArgument "position N: <reason>" naming what it expected and found.
// Thread-safety: values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace stepfault::faults::blackbox {

// One fault: `action` at the window `window` of the run (or, second in a plan, of the first
// recovery).
struct Fault {
  std::string action;  // crash, powerloss, reorder, ioerror (EIO), ioerror:ENOSPC
  std::string window;  // point[role]#N, a TraceWindow id
  // "action@window".
  std::string Print() const { return action + "@" + window; }
  friend bool operator==(const Fault&, const Fault&) = default;
};

using Plan = std::vector<Fault>;
inline constexpr size_t kMaxPlanFaults = 2;  // depth 2

// The actions exploration knows, in matrix order.
const std::vector<std::string>& AllActions();
// Built from the trace, without running the program again: crash, powerloss, reorder.
bool IsCrashLike(std::string_view action);

// The faults joined by ';'.
std::string PrintPlan(const Plan& plan);
Result<Plan> ParsePlan(std::string_view text);

}  // namespace stepfault::faults::blackbox
