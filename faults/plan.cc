// Fault plans: names of actions, their classification, and the plan text parser and printer.
#include "faults/plan.h"

#include <array>
#include <utility>

namespace stepfault::faults {
namespace {

constexpr std::array<std::pair<FaultActionKind, std::string_view>, 10> kActionNames = {{
    {FaultActionKind::kNone, "none"},
    {FaultActionKind::kCrash, "crash"},
    {FaultActionKind::kPowerLoss, "powerloss"},
    {FaultActionKind::kIOError, "ioerror"},
    {FaultActionKind::kCorrupt, "corrupt"},
    {FaultActionKind::kFailAfterWrite, "fail-after-write"},
    {FaultActionKind::kTopology, "topology"},
    {FaultActionKind::kDuplicateResponse, "duplicate-response"},
    {FaultActionKind::kConflictingResponse, "conflicting-response"},
    {FaultActionKind::kObserverCancel, "observer-cancel"},
}};
constexpr std::array<std::pair<CorruptionKind, std::string_view>, 3> kCorruptionNames = {{
    {CorruptionKind::kBitflip, "bitflip"},
    {CorruptionKind::kTruncate, "truncate"},
    {CorruptionKind::kZero, "zero"},
}};
constexpr std::array<std::pair<TopologyMutation, std::string_view>, 6> kMutationNames = {{
    {TopologyMutation::kPermuteEdges, "permute-edges"},
    {TopologyMutation::kSwapFanIn, "swap-fan-in"},
    {TopologyMutation::kRenameExecutor, "rename-executor"},
    {TopologyMutation::kRemoveEdge, "remove-edge"},
    {TopologyMutation::kChangePortType, "change-port-type"},
    {TopologyMutation::kDuplicateEdge, "duplicate-edge"},
}};

// "all" is never written: the plain 'conflicting-response' changes every field.
constexpr std::array<std::pair<ConflictField, std::string_view>, 4> kConflictNames = {{
    {ConflictField::kAll, "all"},
    {ConflictField::kChoice, "choice"},
    {ConflictField::kComment, "comment"},
    {ConflictField::kRequestId, "request-id"},
}};

constexpr std::string_view kActionForms =
    "crash, powerloss, ioerror[:EIO|:ENOSPC], corrupt:bitflip|truncate|zero, fail-after-write, "
    "topology:permute-edges|swap-fan-in|rename-executor|remove-edge|change-port-type|duplicate-"
    "edge, "
    "duplicate-response, conflicting-response[:choice|:comment|:request-id], observer-cancel, none";

template <typename E, size_t N>
std::string_view NameIn(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  SF_CHECK(false && "enum value missing from its name table");
  return "";
}

template <typename E, size_t N>
std::optional<E> ValueIn(const std::array<std::pair<E, std::string_view>, N>& table,
                         std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

template <typename E, size_t N>
std::string NamesOf(const std::array<std::pair<E, std::string_view>, N>& table) {
  std::string out;
  for (const auto& entry : table) out += (out.empty() ? "" : "|") + std::string(entry.second);
  return out;
}

constexpr CharSet kNameChars("a-z0-9._-");
constexpr CharSet kRoleChars("a-z0-9_-");
constexpr CharSet kActionChars("a-zA-Z0-9_-");

// Reads the action (word and optional ':' parameter).
Result<FaultAction> ParseAction(PlanScanner& scan) {
  const Token word = scan.Word(kActionChars);
  if (word.text.empty()) return scan.Expected("an action (" + std::string(kActionForms) + ")");
  std::optional<FaultActionKind> kind = ValueIn(kActionNames, word.text);
  if (!kind) {
    return PlanScanner::ErrorAt(word.position, "unknown action '" + std::string(word.text) +
                                                   "'; expected one of " +
                                                   std::string(kActionForms));
  }
  FaultAction action = FaultAction::Of(*kind);
  const bool takes_parameter =
      *kind == FaultActionKind::kIOError || *kind == FaultActionKind::kCorrupt ||
      *kind == FaultActionKind::kTopology || *kind == FaultActionKind::kConflictingResponse;
  if (!scan.Peek().IsPunct(':')) {
    if (*kind == FaultActionKind::kCorrupt) {
      return scan.Error("expected ':' and a corruption (" + NamesOf(kCorruptionNames) +
                        ") after 'corrupt', e.g. 'corrupt:bitflip'");
    }
    if (*kind == FaultActionKind::kTopology) {
      return scan.Error("expected ':' and a mutation (" + NamesOf(kMutationNames) +
                        ") after 'topology', e.g. 'topology:remove-edge'");
    }
    return action;
  }
  if (!takes_parameter) {
    return scan.Error("action '" + std::string(word.text) + "' takes no ':' parameter");
  }
  scan.Accept(':');
  const Token param_token = scan.Word(kActionChars);
  const std::string_view param = param_token.text;
  const size_t param_start = param_token.position;
  switch (*kind) {
    case FaultActionKind::kIOError:
      if (param == "EIO") return FaultAction::IOError(IOErrorKind::kEIO);
      if (param == "ENOSPC") return FaultAction::IOError(IOErrorKind::kENOSPC);
      return PlanScanner::ErrorAt(param_start, "unknown I/O error '" + std::string(param) +
                                                   "'; write 'ioerror:EIO' or 'ioerror:ENOSPC'");
    case FaultActionKind::kCorrupt:
      if (auto c = ValueIn(kCorruptionNames, param)) return FaultAction::Corrupt(*c);
      return PlanScanner::ErrorAt(param_start, "unknown corruption '" + std::string(param) +
                                                   "'; expected " + NamesOf(kCorruptionNames));
    case FaultActionKind::kTopology:
      if (auto m = ValueIn(kMutationNames, param)) return FaultAction::Topology(*m);
      return PlanScanner::ErrorAt(param_start, "unknown topology mutation '" + std::string(param) +
                                                   "'; expected " + NamesOf(kMutationNames));
    case FaultActionKind::kConflictingResponse:
      if (auto f = ValueIn(kConflictNames, param); f && *f != ConflictField::kAll) {
        return FaultAction::Conflicting(*f);
      }
      return PlanScanner::ErrorAt(param_start,
                                  "unknown conflicting-response field '" + std::string(param) +
                                      "'; expected choice, comment or request-id (or no ':' at all "
                                      "for a response that differs in every field)");
    default:
      break;
  }
  SF_CHECK(false && "parameter of an action that takes none");
  return Status::Internal("unreachable");
}

}  // namespace

bool operator==(const FaultAction& a, const FaultAction& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case FaultActionKind::kIOError:
      return a.io_error == b.io_error;
    case FaultActionKind::kCorrupt:
      return a.corruption == b.corruption;
    case FaultActionKind::kTopology:
      return a.mutation == b.mutation;
    case FaultActionKind::kConflictingResponse:
      return a.conflict == b.conflict;
    default:
      return true;
  }
}

std::string_view FaultActionKindName(FaultActionKind kind) { return NameIn(kActionNames, kind); }
std::string_view CorruptionKindName(CorruptionKind kind) { return NameIn(kCorruptionNames, kind); }
std::string_view TopologyMutationName(TopologyMutation m) { return NameIn(kMutationNames, m); }
std::string_view ConflictFieldName(ConflictField f) { return NameIn(kConflictNames, f); }

std::string FaultActionName(const FaultAction& action) {
  std::string out(FaultActionKindName(action.kind));
  switch (action.kind) {
    case FaultActionKind::kIOError:
      if (action.io_error == IOErrorKind::kENOSPC) out += ":ENOSPC";
      break;
    case FaultActionKind::kCorrupt:
      out += ":" + std::string(CorruptionKindName(action.corruption));
      break;
    case FaultActionKind::kTopology:
      out += ":" + std::string(TopologyMutationName(action.mutation));
      break;
    case FaultActionKind::kConflictingResponse:
      if (action.conflict != ConflictField::kAll) {
        out += ":" + std::string(ConflictFieldName(action.conflict));
      }
      break;
    default:
      break;
  }
  return out;
}

std::vector<FaultActionKind> AllFaultActionKinds() {
  std::vector<FaultActionKind> out;
  for (const auto& entry : kActionNames) {
    if (entry.first != FaultActionKind::kNone) out.push_back(entry.first);
  }
  return out;
}
std::vector<CorruptionKind> AllCorruptionKinds() {
  std::vector<CorruptionKind> out;
  for (const auto& entry : kCorruptionNames) out.push_back(entry.first);
  return out;
}
std::vector<TopologyMutation> AllTopologyMutations() {
  std::vector<TopologyMutation> out;
  for (const auto& entry : kMutationNames) out.push_back(entry.first);
  return out;
}

std::vector<ConflictField> AllConflictFields() {
  std::vector<ConflictField> out;
  for (const auto& entry : kConflictNames) out.push_back(entry.first);
  return out;
}

std::vector<FaultAction> VariantsOf(FaultActionKind kind) {
  std::vector<FaultAction> out;
  switch (kind) {
    case FaultActionKind::kIOError:
      out = {FaultAction::IOError(IOErrorKind::kEIO), FaultAction::IOError(IOErrorKind::kENOSPC)};
      break;
    case FaultActionKind::kCorrupt:
      for (CorruptionKind c : AllCorruptionKinds()) out.push_back(FaultAction::Corrupt(c));
      break;
    case FaultActionKind::kTopology:
      for (TopologyMutation m : AllTopologyMutations()) out.push_back(FaultAction::Topology(m));
      break;
    case FaultActionKind::kConflictingResponse:
      for (ConflictField f : AllConflictFields()) out.push_back(FaultAction::Conflicting(f));
      break;
    default:
      out.push_back(FaultAction::Of(kind));
      break;
  }
  return out;
}

bool IsDeath(const FaultAction& action) {
  switch (action.kind) {
    case FaultActionKind::kCrash:
    case FaultActionKind::kPowerLoss:
    case FaultActionKind::kFailAfterWrite:
    case FaultActionKind::kCorrupt:
      return true;
    default:
      return false;
  }
}

DeathKind DeathKindOf(const FaultAction& action) {
  SF_CHECK(IsDeath(action));
  switch (action.kind) {
    case FaultActionKind::kPowerLoss:
      return DeathKind::kPowerLoss;
    case FaultActionKind::kFailAfterWrite:
      return DeathKind::kExit;
    default:
      return DeathKind::kCrash;
  }
}

bool IsRecoverySide(const FaultAction& action) {
  switch (action.kind) {
    case FaultActionKind::kTopology:
    case FaultActionKind::kDuplicateResponse:
    case FaultActionKind::kConflictingResponse:
    case FaultActionKind::kObserverCancel:
      return true;
    default:
      return false;
  }
}

std::string_view PointNameOf(std::string_view point) { return point.substr(0, point.find('[')); }

std::string_view PointRoleOf(std::string_view point) {
  const size_t open = point.find('[');
  if (open == std::string_view::npos) return {};
  std::string_view rest = point.substr(open + 1);
  if (!rest.empty() && rest.back() == ']') rest.remove_suffix(1);
  return rest;
}

bool FaultPoint::Matches(std::string_view point) const {
  if (PointNameOf(point) != name) return false;
  return role.empty() || PointRoleOf(point) == role;
}

std::string FaultPoint::Print() const { return role.empty() ? name : name + "[" + role + "]"; }

Result<FaultPoint> FaultPoint::Parse(std::string_view text) {
  PlanScanner scan(text);
  SF_ASSIGN_OR_RETURN(FaultPoint point, ParseFrom(scan));
  SF_RETURN_IF_ERROR(scan.ExpectEnd("the point"));
  return point;
}

Result<FaultPoint> FaultPoint::ParseFrom(PlanScanner& scan) {
  FaultPoint point;
  point.name = std::string(scan.Word(kNameChars).text);
  if (point.name.empty()) {
    return scan.Expected("a point name (" + kNameChars.Describe() +
                         "+, e.g. 'fs.rename' or 'checkpoint.commit.before')");
  }
  if (!scan.Accept('[')) return point;
  point.role = std::string(scan.Word(kRoleChars).text);
  if (point.role.empty()) {
    return scan.Expected("a role (" + kRoleChars.Describe() + "+, e.g. 'receipt') after '['");
  }
  if (!scan.Accept(']')) return scan.Expected("']' closing the role '" + point.role + "'");
  return point;
}

std::string Fault::Print() const {
  if (is_none()) return "none";
  return FaultActionName(action) + "@" + point.Print() + trigger.Print();
}

Result<Fault> Fault::Parse(std::string_view text) {
  PlanScanner scan(text);
  SF_ASSIGN_OR_RETURN(Fault fault, ParseFrom(scan));
  SF_RETURN_IF_ERROR(scan.ExpectEnd("the fault"));
  return fault;
}

Result<Fault> Fault::ParseFrom(PlanScanner& scan) {
  Fault fault;
  SF_ASSIGN_OR_RETURN(fault.action, ParseAction(scan));
  if (fault.is_none()) {
    if (scan.Peek().IsPunct('@')) {
      return scan.Error("'none' is a life without a fault and takes no point; write 'none' alone");
    }
    return fault;
  }
  const std::string action_name = FaultActionName(fault.action);
  if (!scan.Accept('@')) {
    return scan.Error("expected '@' and a point after the action '" + action_name + "', found " +
                      scan.Found() + " (e.g. '" + action_name + "@checkpoint.commit.before#1')");
  }
  SF_ASSIGN_OR_RETURN(fault.point, FaultPoint::ParseFrom(scan));
  SF_ASSIGN_OR_RETURN(fault.trigger,
                      Trigger::ParseFrom(scan, "the point '" + fault.point.Print() + "'"));
  return fault;
}

std::optional<Fault> Plan::ForLife(int life) const {
  SF_CHECK(life >= 1);
  if (static_cast<size_t>(life) > faults.size()) return std::nullopt;
  const Fault& fault = faults[static_cast<size_t>(life) - 1];
  if (fault.is_none()) return std::nullopt;
  return fault;
}

std::string PrintPlan(const Plan& plan) {
  std::string out;
  for (size_t i = 0; i < plan.faults.size(); ++i) {
    if (i > 0) out += ';';
    out += plan.faults[i].Print();
  }
  return out;
}

Result<Plan> ParsePlan(std::string_view text) {
  Plan plan;
  if (text.empty()) return plan;
  PlanScanner scan(text);
  // Every fault consumes at least one character, so the text length bounds the loop.
  for (size_t i = 0; i <= text.size(); ++i) {
    SF_ASSIGN_OR_RETURN(Fault fault, Fault::ParseFrom(scan));
    plan.faults.push_back(std::move(fault));
    if (scan.AtEnd()) return plan;
    if (!scan.Accept(';')) {
      const bool none = plan.faults.back().is_none();
      return scan.Error(std::string(none ? "expected ';' starting the next fault"
                                         : "expected '&' joining another trigger, ';' starting the "
                                           "next fault") +
                        ", or the end of the plan, found " + scan.Found());
    }
    if (scan.AtEnd()) {
      return scan.Error(
          "expected a fault after ';' (remove the trailing ';', or write 'none' for "
          "a life without a fault)");
    }
  }
  SF_CHECK(false && "plan parse loop bound hit");
  return Status::Internal("unreachable");
}

}  // namespace stepfault::faults
