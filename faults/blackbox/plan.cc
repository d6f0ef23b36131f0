// Black-box plan text (see plan.h): a grammar over the plan scanner.
#include "faults/blackbox/plan.h"

#include <algorithm>

#include "faults/plan_syntax.h"

namespace stepfault::faults::blackbox {
namespace {

constexpr CharSet kActionChars("a-zA-Z0-9:_-");
constexpr CharSet kPointChars("a-z0-9._-");
constexpr CharSet kRoleChars = CharSet::AllBut("];");
constexpr uint64_t kMaxOccurrence = 1'000'000'000;
constexpr std::string_view kActionList = "crash, powerloss, reorder, ioerror or ioerror:ENOSPC";
constexpr std::string_view kForm =
    "a black-box plan is action@point[role]#N joined by ';', e.g. "
    "powerloss@fs.write[state.json]#1";

Result<std::string> ParseAction(PlanScanner& scan) {
  const Token word = scan.Word(kActionChars);
  if (word.text.empty()) {
    return scan.Expected("an action (" + std::string(kActionList) + "); " + std::string(kForm));
  }
  std::string action(word.text == "ioerror:EIO" ? "ioerror" : word.text);
  const std::vector<std::string>& all = AllActions();
  if (std::find(all.begin(), all.end(), action) == all.end()) {
    return PlanScanner::ErrorAt(word.position, "unknown action '" + std::string(word.text) +
                                                   "'; expected " + std::string(kActionList) +
                                                   "; " + std::string(kForm));
  }
  return action;
}

// point '[' role ']' '#' N, as its canonical text.
Result<std::string> ParseWindow(PlanScanner& scan) {
  const Token point = scan.Word(kPointChars);
  if (point.text.empty()) {
    return scan.Expected("a point name (" + kPointChars.Describe() +
                         "+, e.g. 'fs.write') after '@'; " + std::string(kForm));
  }
  if (!scan.Accept('[')) {
    return scan.Expected("'[' and a role after the point '" + std::string(point.text) +
                         "' (a black-box window always has one: the path, e.g. '" +
                         std::string(point.text) + "[state.json]#1')");
  }
  const Token role = scan.Word(kRoleChars);
  if (role.text.empty()) {
    return scan.Expected("a role (the path: any characters but ']' and ';') after '['");
  }
  if (!scan.Accept(']'))
    return scan.Expected("']' closing the role '" + std::string(role.text) + "'");
  const std::string where = std::string(point.text) + "[" + std::string(role.text) + "]";
  if (!scan.Accept('#')) {
    return scan.Expected("'#' and the window's occurrence after '" + where + "' (e.g. '" + where +
                         "#1')");
  }
  SF_ASSIGN_OR_RETURN(uint64_t n, scan.Number("window occurrence after '#'", 1, kMaxOccurrence));
  return where + "#" + std::to_string(n);
}

Result<Fault> ParseFault(PlanScanner& scan) {
  Fault fault;
  SF_ASSIGN_OR_RETURN(fault.action, ParseAction(scan));
  if (!scan.Accept('@')) {
    return scan.Expected("'@' and a window after the action '" + fault.action + "'; " +
                         std::string(kForm));
  }
  SF_ASSIGN_OR_RETURN(fault.window, ParseWindow(scan));
  return fault;
}

}  // namespace

const std::vector<std::string>& AllActions() {
  static const auto* list =
      new std::vector<std::string>{"crash", "powerloss", "reorder", "ioerror", "ioerror:ENOSPC"};
  return *list;
}

bool IsCrashLike(std::string_view action) {
  return action == "crash" || action == "powerloss" || action == "reorder";
}

std::string PrintPlan(const Plan& plan) {
  std::string out;
  for (const Fault& f : plan) out += (out.empty() ? "" : ";") + f.Print();
  return out;
}

Result<Plan> ParsePlan(std::string_view text) {
  static_assert(kMaxPlanFaults == 2, "the message names depth 2");
  const JoinedForm form{';', kMaxPlanFaults,
                        "at most 2 faults (depth 2: one in the run, one in the first recovery)",
                        "';' starting the next fault, or the end of the plan"};
  PlanScanner scan(text);
  return scan.ParseJoined<Fault>(form, ParseFault);
}

}  // namespace stepfault::faults::blackbox
