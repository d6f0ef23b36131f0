// Fault plans: which fault strikes in each life of the process, as values with a one-line text
// form.
//
// A plan is a list of faults, one per life: life 1 (the first run) uses fault 1, the first
// recovery uses fault 2, and so on; lives past the end of the plan have no fault. The text form is
// the faults joined by ';' (the empty text is the fault-free plan):
//   powerloss@fs.rename[receipt]#1;crash@effect.commit.after#1
//   fault   := action '@' point trigger | 'none'
//   action  := crash | powerloss | ioerror[:EIO|:ENOSPC] | corrupt:(bitflip|truncate|zero)
//            | fail-after-write | topology:<mutation> | duplicate-response
//            | conflicting-response[:choice|:comment|:request-id] | observer-cancel
//   point   := name ['[' role ']']   name [a-z0-9._-]+, role [a-z0-9_-]+
//   trigger := see faults/plan_trigger.h ("#3", "%2", "~0.25/s7", joined by '&')
// 'none' is a life without a fault (so a plan can leave a life alone) and stands alone.
// A point without a role matches every role of its name; with a role, only that exact role.
//
// Promises: PrintPlan(p) is the canonical text, ParsePlan(PrintPlan(p)) == p, and
// PrintPlan(ParsePlan(t)) == t for canonical t (the only non-canonical spellings accepted are
// "ioerror:EIO", which prints as "ioerror", and probabilities with trailing zeros). A conflicting
// response without a field changes every field it can (the decision's choice and comment), as it
// always did; with a field it changes that one only, so a rule that compares only one field is
// caught (issue 12). ParsePlan
// rejects anything else with the 1-based character position, the reason and the expected form.
// Thread-safety: values; safe to share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"
#include "faults/fault_hook.h"
#include "faults/plan_trigger.h"

namespace stepfault::faults {

enum class FaultActionKind {
  kNone,
  kCrash,
  kPowerLoss,
  kIOError,
  kCorrupt,
  kFailAfterWrite,
  kTopology,
  kDuplicateResponse,
  kConflictingResponse,
  kObserverCancel,
};
enum class IOErrorKind { kEIO, kENOSPC };
enum class CorruptionKind { kBitflip, kTruncate, kZero };
// What a conflicting response changes: every field (kAll, the plain 'conflicting-response'), or
// exactly one, so a host rule that compares only some fields of a replayed response is caught.
enum class ConflictField { kAll, kChoice, kComment, kRequestId };
enum class TopologyMutation {
  kPermuteEdges,
  kSwapFanIn,
  kRenameExecutor,
  kRemoveEdge,
  kChangePortType,
  kDuplicateEdge
};

// An action and its parameter. Only the parameter of its kind is meaningful; equality ignores the
// others.
struct FaultAction {
  FaultActionKind kind = FaultActionKind::kNone;
  IOErrorKind io_error = IOErrorKind::kEIO;                     // kIOError
  CorruptionKind corruption = CorruptionKind::kBitflip;         // kCorrupt
  TopologyMutation mutation = TopologyMutation::kPermuteEdges;  // kTopology
  ConflictField conflict = ConflictField::kAll;                 // kConflictingResponse

  static FaultAction Of(FaultActionKind kind) { return FaultAction{kind}; }
  static FaultAction IOError(IOErrorKind e) { return {FaultActionKind::kIOError, e}; }
  static FaultAction Corrupt(CorruptionKind c) {
    return {FaultActionKind::kCorrupt, IOErrorKind::kEIO, c};
  }
  static FaultAction Topology(TopologyMutation m) {
    return {FaultActionKind::kTopology, IOErrorKind::kEIO, CorruptionKind::kBitflip, m};
  }
  static FaultAction Conflicting(ConflictField f) {
    FaultAction a{FaultActionKind::kConflictingResponse};
    a.conflict = f;
    return a;
  }
  friend bool operator==(const FaultAction& a, const FaultAction& b);
};

// "crash", "ioerror", "corrupt", "topology", ... (the kind alone).
std::string_view FaultActionKindName(FaultActionKind kind);
// The action as written in a plan: "crash", "ioerror:ENOSPC", "corrupt:bitflip",
// "topology:remove-edge".
std::string FaultActionName(const FaultAction& action);
std::string_view CorruptionKindName(CorruptionKind kind);
std::string_view TopologyMutationName(TopologyMutation mutation);
std::string_view ConflictFieldName(ConflictField field);  // "all", "choice", "comment", ...
std::vector<FaultActionKind> AllFaultActionKinds();       // every kind but kNone
std::vector<CorruptionKind> AllCorruptionKinds();
std::vector<TopologyMutation> AllTopologyMutations();
std::vector<ConflictField> AllConflictFields();  // kAll first
// Every action of `kind` with each of its parameters (ioerror: EIO and ENOSPC; corrupt: every
// corruption; topology: every mutation; conflicting-response: every field); the kind alone else.
std::vector<FaultAction> VariantsOf(FaultActionKind kind);

// Deaths end the life: crash, powerloss, fail-after-write, and corrupt (a crash after which the
// harness damages a file of the post-crash world).
bool IsDeath(const FaultAction& action);
// REQUIRES: IsDeath(action). crash, corrupt -> kCrash; powerloss -> kPowerLoss;
// fail-after-write -> kExit.
DeathKind DeathKindOf(const FaultAction& action);
// Applied by the harness when recovering (at point host.resume): topology, duplicate-response,
// conflicting-response, observer-cancel. The injector only reports that they fired.
bool IsRecoverySide(const FaultAction& action);

// A fault point pattern: a name and an optional role.
struct FaultPoint {
  std::string name;
  std::string role;  // empty: every role of `name`

  // Whether a hit at `point` ("fs.rename[receipt]" or "checkpoint.commit.before") matches.
  bool Matches(std::string_view point) const;
  // "name" or "name[role]".
  std::string Print() const;
  static Result<FaultPoint> Parse(std::string_view text);
  static Result<FaultPoint> ParseFrom(PlanScanner& scan);
  friend bool operator==(const FaultPoint&, const FaultPoint&) = default;
};

// Splits "name[role]" into name and role ("" when there is none). Does not validate.
std::string_view PointNameOf(std::string_view point);
std::string_view PointRoleOf(std::string_view point);

// One fault: at the hits of `point` where `trigger` fires, `action` strikes. The 'none' fault has
// an empty point and trigger.
struct Fault {
  FaultAction action;
  FaultPoint point;
  Trigger trigger;

  static Fault None() { return Fault{}; }
  bool is_none() const { return action.kind == FaultActionKind::kNone; }
  std::string Print() const;
  static Result<Fault> Parse(std::string_view text);
  static Result<Fault> ParseFrom(PlanScanner& scan);
  friend bool operator==(const Fault&, const Fault&) = default;
};

struct Plan {
  std::vector<Fault> faults;

  // The fault of life `life` (1-based), or nullopt when that life has none (past the end, 'none').
  // REQUIRES: life >= 1.
  std::optional<Fault> ForLife(int life) const;
  friend bool operator==(const Plan&, const Plan&) = default;
};

std::string PrintPlan(const Plan& plan);
Result<Plan> ParsePlan(std::string_view text);

}  // namespace stepfault::faults
