// Interactive-flow plan text (see flow_plan.h): a grammar over the plan scanner.
#include "scenarios/interactive_flow/flow_plan.h"

#include <array>
#include <utility>

#include "faults/plan_syntax.h"

namespace stepfault::scenarios::flow {
namespace {

using faults::CharSet;
using faults::PlanScanner;
using faults::Token;

constexpr CharSet kLetters("a-z");
constexpr std::array<std::pair<FlowFault::Kind, std::string_view>, 3> kKinds = {{
    {FlowFault::Kind::kCrashActor, "crash"},
    {FlowFault::Kind::kPowerLoss, "powerloss"},
    {FlowFault::Kind::kTimeAdvance, "time"},
}};
constexpr std::string_view kFaultForms =
    "crash:<actor>@<step>, powerloss:<actor>@<step> or time:<actor>@<step>";

// "a letter a-e (a worker-a, b worker-b, ...)".
std::string ActorForms() {
  const std::vector<std::string>& names = FlowActorNames();
  std::string out =
      "a letter a-" + std::string(1, static_cast<char>('a' + names.size() - 1)) + " (";
  for (size_t i = 0; i < names.size(); ++i)
    out += (i ? ", " : "") + std::string(1, static_cast<char>('a' + i)) + " " + names[i];
  return out + ")";
}

Result<FlowFault> ParseFault(PlanScanner& scan) {
  const Token kind = scan.Word(kLetters);
  if (kind.text.empty()) {
    return scan.Expected("a fault (" + std::string(kFaultForms) + ", several joined by ',')");
  }
  FlowFault fault;
  fault.kind = FlowFault::Kind::kNone;
  for (const auto& [k, name] : kKinds) {
    if (name == kind.text) fault.kind = k;
  }
  if (fault.kind == FlowFault::Kind::kNone) {
    return PlanScanner::ErrorAt(kind.position, "unknown fault '" + std::string(kind.text) +
                                                   "'; expected " + std::string(kFaultForms) +
                                                   " (several joined by ',', or 'none' alone)");
  }
  const std::string form = std::string(kind.text) + ":b@3";
  if (!scan.Accept(':')) {
    return scan.Expected("':' and an actor after '" + std::string(kind.text) + "' (e.g. '" + form +
                         "')");
  }
  const Token actor = scan.Word(kLetters);
  const auto actors = FlowActorNames().size();
  if (actor.text.empty()) return scan.Expected("an actor, " + ActorForms());
  if (actor.text.size() != 1 || static_cast<size_t>(actor.text[0] - 'a') >= actors) {
    return PlanScanner::ErrorAt(actor.position, "unknown actor '" + std::string(actor.text) +
                                                    "'; the actor is " + ActorForms());
  }
  fault.actor = actor.text[0] - 'a';
  if (!scan.Accept('@')) {
    return scan.Expected("'@' and the actor's step after the actor (e.g. '" + form + "')");
  }
  SF_ASSIGN_OR_RETURN(uint64_t step, scan.Number("step after '@'", 1, kMaxFlowStep));
  fault.at_step = static_cast<int>(step);
  return fault;
}

}  // namespace

const std::vector<std::string>& FlowActorNames() {
  static const auto* names =
      new std::vector<std::string>{"worker-a", "worker-b", "sweeper", "responder", "clock"};
  return *names;
}

std::string FlowFaultText(const FlowFault& fault) {
  if (fault.kind == FlowFault::Kind::kNone) return "none";
  std::string_view kind;
  for (const auto& [k, name] : kKinds) {
    if (k == fault.kind) kind = name;
  }
  return std::string(kind) + ":" + std::string(1, static_cast<char>('a' + fault.actor)) + "@" +
         std::to_string(fault.at_step);
}

std::string FlowPlanText(const FlowPlan& plan) {
  std::string out;
  for (const FlowFault& f : plan) out += (out.empty() ? "" : ",") + FlowFaultText(f);
  return out.empty() ? "none" : out;
}

Result<FlowFault> ParseFlowFault(std::string_view text) {
  if (text == "none" || text.empty()) return FlowFault{};
  PlanScanner scan(text);
  SF_ASSIGN_OR_RETURN(FlowFault fault, ParseFault(scan));
  SF_RETURN_IF_ERROR(scan.ExpectEnd("the fault"));
  return fault;
}

Result<FlowPlan> ParseFlowPlan(std::string_view text) {
  if (text == "none" || text.empty()) return FlowPlan{};
  const std::string too_many =
      "at most " + std::to_string(kMaxFlowPlanFaults) + " faults in a plan";
  const faults::JoinedForm form{',', kMaxFlowPlanFaults, too_many,
                                "',' starting the next fault, or the end of the plan"};
  PlanScanner scan(text);
  return scan.ParseJoined<FlowFault>(form, [](PlanScanner& s) -> Result<FlowFault> {
    if (s.Peek().text == "none") return s.Error("'none' is a plan without faults and stands alone");
    return ParseFault(s);
  });
}

}  // namespace stepfault::scenarios::flow
