// The fault-point registry table, the applicability rules and the default role classifier.
#include "faults/points.h"

#include <algorithm>

#include "engine/probe_points.h"
#include "engine/suggest.h"

namespace stepfault::faults {
namespace {

std::vector<PointInfo> BuildTable() {
  const std::vector<std::string>& fs_roles = FileRoles();
  auto fs = [&](std::string name, std::string meaning) {
    return PointInfo{std::move(name), PointLayer::kFs, std::move(meaning), fs_roles};
  };
  auto plain = [](std::string name, PointLayer layer, std::string meaning) {
    return PointInfo{std::move(name), layer, std::move(meaning), {}};
  };
  return {
      // engine
      plain(points::kStepHandlersAfter, PointLayer::kEngine,
            "all handlers of a superstep ran; its checkpoint is not yet written"),
      plain(points::kCheckpointCommitBefore, PointLayer::kEngine,
            "a checkpoint is built and about to be committed to the store"),
      plain(points::kCheckpointCommitAfter, PointLayer::kEngine,
            "the store committed a checkpoint; the engine has not yet moved on"),
      plain(points::kRestoreImportBefore, PointLayer::kEngine,
            "a checkpoint was read and is about to be imported into a fresh run"),
      plain(points::kRestoreStateApply, PointLayer::kEngine,
            "the checked checkpoint's state is about to be written into the run"),
      plain(points::kRestoreImportAfter, PointLayer::kEngine,
            "the checkpoint's state is imported; pending requests not yet re-announced"),
      plain(points::kRestoreNotifyBefore, PointLayer::kEngine,
            "about to re-announce the restored pending requests to observers"),
      // store
      plain(points::kStorePruneBefore, PointLayer::kStore,
            "the store is about to delete checkpoints older than the retained ones"),
      plain(points::kStorePruneDelete, PointLayer::kStore,
            "before each delete of an obsolete checkpoint"),
      // file system (the SimFs, ProbedEnv, and the SQLite VFS for db and journal files)
      fs(points::kFsCreate, "a new file is about to be created"),
      fs(points::kFsWrite, "bytes are about to be written (every append or positioned write)"),
      fs(points::kFsFsync, "a file is about to be made durable"),
      fs(points::kFsTruncate,
         "a file is about to be cut (or an existing non-empty file recreated)"),
      fs(points::kFsRename, "a file is about to be renamed over its target (role of the source)"),
      fs(points::kFsUnlink, "a file is about to be removed"),
      fs(points::kFsDirsync, "a directory is about to be synced (role of the directory path)"),
      // scenario and host
      plain(points::kHostResume, PointLayer::kScenario,
            "the host is about to resume a run from its latest checkpoint (recovery-side actions)"),
      plain(points::kReceiptPublishBefore, PointLayer::kScenario,
            "a receipt of a pending request is about to be published"),
      plain(points::kReceiptPublishAfter, PointLayer::kScenario, "a receipt was published"),
      plain(points::kDecisionRecordAfter, PointLayer::kScenario,
            "an external decision (a response to a request) was recorded"),
      plain(points::kEffectCommitBefore, PointLayer::kScenario,
            "the business transaction with the side effect is about to commit"),
      plain(points::kEffectCommitAfter, PointLayer::kScenario,
            "the business transaction committed; the workflow does not know yet"),
      plain(points::kOutputPublishBefore, PointLayer::kScenario,
            "the workflow's output is about to be published"),
  };
}

bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool IsCorruptibleRole(std::string_view role) {
  return role == "checkpoint" || role == "index" || role == "receipt";
}

// Applicability of a kind at a known point with a known (possibly empty) role.
bool KindApplies(FaultActionKind kind, const PointInfo& info, std::string_view role) {
  switch (kind) {
    case FaultActionKind::kNone:
      return false;
    case FaultActionKind::kCrash:
    case FaultActionKind::kPowerLoss:
      return true;
    case FaultActionKind::kIOError:
      return info.layer == PointLayer::kFs;
    case FaultActionKind::kCorrupt:
      return info.layer == PointLayer::kFs && IsCorruptibleRole(role);
    case FaultActionKind::kFailAfterWrite:
      return info.name == points::kEffectCommitAfter;
    case FaultActionKind::kTopology:
    case FaultActionKind::kDuplicateResponse:
    case FaultActionKind::kConflictingResponse:
    case FaultActionKind::kObserverCancel:
      return info.name == "host.resume";
  }
  return false;
}

// The point's info if `point_with_role` names a registered point with a role it carries.
const PointInfo* FindWindowPoint(std::string_view point_with_role) {
  const PointInfo* info = FindPoint(PointNameOf(point_with_role));
  if (info == nullptr) return nullptr;
  const std::string_view role = RoleOf(point_with_role);
  if (!role.empty() && !Contains(info->roles, role)) return nullptr;
  return info;
}

// "<digits>-<hex>.json": the checkpoint file name shape.
bool IsCheckpointFileName(std::string_view base) {
  if (!base.ends_with(".json")) return false;
  std::string_view stem = base.substr(0, base.size() - 5);
  const size_t dash = stem.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == stem.size()) return false;
  auto digits = stem.substr(0, dash);
  auto hex = stem.substr(dash + 1);
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
         std::all_of(hex.begin(), hex.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::string_view PointLayerName(PointLayer layer) {
  switch (layer) {
    case PointLayer::kEngine:
      return "engine";
    case PointLayer::kStore:
      return "store";
    case PointLayer::kFs:
      return "fs";
    case PointLayer::kVfs:
      return "vfs";
    case PointLayer::kScenario:
      return "scenario";
  }
  return "unknown";
}

const std::vector<std::string>& FileRoles() {
  static const auto* roles = new std::vector<std::string>{"checkpoint", "index", "receipt", "db",
                                                          "journal",    "lock",  "file",    "temp"};
  return *roles;
}

const std::vector<PointInfo>& AllPoints() {
  static const auto* table = new std::vector<PointInfo>(BuildTable());
  return *table;
}

const PointInfo* FindPoint(std::string_view name) {
  for (const PointInfo& info : AllPoints()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string_view RoleOf(std::string_view point_with_role) { return PointRoleOf(point_with_role); }

std::vector<std::string> ApplicableActions(std::string_view point_with_role) {
  std::vector<std::string> out;
  const PointInfo* info = FindWindowPoint(point_with_role);
  if (info == nullptr) return out;
  for (FaultActionKind kind : AllFaultActionKinds()) {
    if (KindApplies(kind, *info, RoleOf(point_with_role))) {
      out.emplace_back(FaultActionKindName(kind));
    }
  }
  return out;
}

bool IsApplicable(const FaultAction& action, std::string_view point_with_role) {
  const PointInfo* info = FindWindowPoint(point_with_role);
  return info != nullptr && KindApplies(action.kind, *info, RoleOf(point_with_role));
}

std::vector<FaultAction> ApplicableFaultActions(std::string_view point_with_role) {
  std::vector<FaultAction> out;
  for (FaultActionKind kind : AllFaultActionKinds()) {
    FaultAction probe = FaultAction::Of(kind);
    if (!IsApplicable(probe, point_with_role)) continue;
    for (const FaultAction& a : VariantsOf(kind)) out.push_back(a);
  }
  return out;
}

Status CheckPlanPoints(const Plan& plan) {
  for (size_t i = 0; i < plan.faults.size(); ++i) {
    const Fault& fault = plan.faults[i];
    if (fault.is_none()) continue;
    const std::string where = "fault " + std::to_string(i + 1) + " '" + fault.Print() + "'";
    const PointInfo* info = FindPoint(fault.point.name);
    if (info == nullptr) {
      std::vector<std::string> names;
      for (const PointInfo& p : AllPoints()) names.push_back(p.name);
      return Status::InvalidArgument(where + ": unknown point '" + fault.point.name + "'" +
                                     DidYouMean(fault.point.name, names) +
                                     "; `stepfault list points` lists the registered points");
    }
    std::vector<std::string> roles;
    if (!fault.point.role.empty()) {
      if (!Contains(info->roles, fault.point.role)) {
        return Status::InvalidArgument(where + ": point '" + info->name + "' has no role '" +
                                       fault.point.role + "'");
      }
      roles.push_back(fault.point.role);
    } else {
      roles = info->roles.empty() ? std::vector<std::string>{""} : info->roles;
    }
    const bool applies = std::any_of(roles.begin(), roles.end(), [&](const std::string& role) {
      return KindApplies(fault.action.kind, *info, role);
    });
    if (!applies) {
      std::string applicable;
      for (const std::string& role : roles) {
        const std::string window = role.empty() ? info->name : info->name + "[" + role + "]";
        for (const std::string& a : ApplicableActions(window)) {
          if (applicable.find(a) == std::string::npos)
            applicable += (applicable.empty() ? "" : ", ") + a;
        }
      }
      return Status::InvalidArgument(
          where + ": '" + std::string(FaultActionKindName(fault.action.kind)) +
          "' does not apply at '" + fault.point.Print() + "'; there, use one of: " + applicable);
    }
  }
  return Status::Ok();
}

std::string ClassifyRole(const std::string& path) {
  std::string_view p = path;
  if (p.ends_with(".tmp")) p.remove_suffix(4);
  const size_t slash = p.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? p : p.substr(slash + 1);
  const std::string_view dir =
      slash == std::string_view::npos ? std::string_view() : p.substr(0, slash);
  const size_t dir_slash = dir.rfind('/');
  const std::string_view dir_base =
      dir_slash == std::string_view::npos ? dir : dir.substr(dir_slash + 1);

  if (base == "waiting.json" || base.ends_with(".receipt.json")) return "receipt";
  if (base == "index.jsonl") return "index";
  if (base.ends_with(".json") && (dir_base == "checkpoints" || IsCheckpointFileName(base))) {
    return "checkpoint";
  }
  if (base.ends_with(".db")) return "db";
  if (base.ends_with("-journal") || base.ends_with("-wal")) return "journal";
  if (base == "LOCK" || base.ends_with(".lock") || base.ends_with(".lease")) return "lock";
  return "file";
}

std::function<std::string(const std::string&)> DefaultRoleClassifier() { return ClassifyRole; }

}  // namespace stepfault::faults
