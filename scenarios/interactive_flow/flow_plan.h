// Interactive-flow fault plans: which actor a fault strikes at which of its steps, as values with a
// one-line text form read with the plan scanner (faults/plan_syntax.h).
//   plan   := 'none' | fault (',' fault)*      at most kMaxFlowPlanFaults faults
//   fault  := kind ':' actor '@' step          e.g. crash:b@3, powerloss:a@9, time:c@1
//   kind   := crash | powerloss | time
//   actor  := a letter a.. (FlowActorNames in letter order: a worker-a ... e clock)
//   step   := the actor's n-th step, 1.. without leading zeros
// The empty text is 'none' too.
//
// Promises: FlowPlanText(ParseFlowPlan(t)) == t for canonical t, and ParseFlowPlan(FlowPlanText(p))
// == p for every plan of faults that are not kNone; ParseFlowFault/ParseFlowPlan reject anything
// else with InvalidArgument "position N: <reason>" naming what was expected and found.
// Thread-safety: values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace stepfault::scenarios::flow {

// The actors, in letter order.
const std::vector<std::string>& FlowActorNames();

struct FlowFault {
  // kTimeAdvance: the actor's own connection moves the logical clock forward by
  // TimeJumpTicks(options) (flow_world.h) in one journalled transaction, then the actor goes on.
  enum class Kind { kNone, kCrashActor, kPowerLoss, kTimeAdvance };
  Kind kind = Kind::kNone;
  int actor = 0;    // index into FlowActorNames()
  int at_step = 0;  // the actor's n-th step (1-based)
  friend bool operator==(const FlowFault&, const FlowFault&) = default;
};
inline constexpr int kMaxFlowStep = 1'000'000;
// "none", "crash:b@3", "powerloss:a@2", "time:c@1".
std::string FlowFaultText(const FlowFault& fault);
// The inverse ("none" and the empty text are the kNone fault).
Result<FlowFault> ParseFlowFault(std::string_view text);

// The faults of one run, each firing when its actor reaches its step (several at one step: in
// plan order). A power loss ends every actor, so a fault after it never fires; a crash of an
// actor already dead never fires. Text: the faults joined by ',' ("crash:b@3,powerloss:a@9"),
// "none" for no fault; a plan of one fault is that fault's text. Deliberately
// (docs/engine-semantics.md 10.1, interactive-flow): no actor applies the inherited-durability rule
// to what a crashed actor left before a later power loss; SQLite's hot-journal rollback is the only
// repair.
using FlowPlan = std::vector<FlowFault>;
inline constexpr size_t kMaxFlowPlanFaults = 4;
std::string FlowPlanText(const FlowPlan& plan);
// At most kMaxFlowPlanFaults faults; "none" only alone.
Result<FlowPlan> ParseFlowPlan(std::string_view text);

}  // namespace stepfault::scenarios::flow
