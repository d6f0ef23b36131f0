// The fault-point registry: every point the code can hit, with its stable name, its layer, what
// it means, the file roles it can carry, and which actions apply there.
//
// Rules for the actions (ApplicableActions):
//  - crash and powerloss apply at every point;
//  - ioerror only at file-system points (fs.*), which have an operation to fail;
//  - corrupt only at fs points of a published file's role: checkpoint, index, receipt;
//  - fail-after-write only at effect.commit.after;
//  - the recovery-side actions (topology, duplicate-response, conflicting-response,
//    observer-cancel) only at host.resume, where the harness applies them.
// A name in code that is missing here is a bug: the explorer cannot name its windows.
// Thread-safety: the table is immutable after first use; safe to share.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"
#include "faults/plan.h"

namespace stepfault::faults {

enum class PointLayer { kEngine, kStore, kFs, kVfs, kScenario };
std::string_view PointLayerName(PointLayer layer);

struct PointInfo {
  std::string name;  // stable, [a-z0-9._-]+, without a role
  PointLayer layer;
  std::string meaning;             // one line
  std::vector<std::string> roles;  // the roles it carries ("fs.rename[receipt]"); empty: none
};

// Roles of file-system points, as the role classifier names them (the SimFs adds "temp" for the
// SQLite VFS's anonymous files).
const std::vector<std::string>& FileRoles();

const std::vector<PointInfo>& AllPoints();
// nullptr when unknown. `name` has no role.
const PointInfo* FindPoint(std::string_view name);
// "receipt" for "fs.rename[receipt]"; "" when there is no role.
std::string_view RoleOf(std::string_view point_with_role);

// Action kind names that apply at the window `point_with_role` (a point as hit, role included),
// in the order of AllFaultActionKinds(); empty for an unknown point or a role it cannot carry.
std::vector<std::string> ApplicableActions(std::string_view point_with_role);
// Whether `action` applies at `point_with_role` by the rules above.
bool IsApplicable(const FaultAction& action, std::string_view point_with_role);
// Every concrete action (all parameters expanded: ioerror:EIO and :ENOSPC, each corruption, each
// mutation) that applies at `point_with_role`: what an explorer tries at one window.
std::vector<FaultAction> ApplicableFaultActions(std::string_view point_with_role);

// Checks that every fault of `plan` names a registered point (and a role it carries) and that its
// action applies there; a role-less fs point counts as applicable if the action applies at one of
// its roles. The message names the fault and says what applies instead.
Status CheckPlanPoints(const Plan& plan);

// path -> role. After stripping a ".tmp" suffix: "waiting.json" or "*.receipt.json" -> receipt;
// "index.jsonl" -> index; "*.json" in a directory named "checkpoints", or named
// "<digits>-<hex>.json" -> checkpoint; "*.db" -> db; "*-journal", "*-wal" -> journal;
// "LOCK", "*.lock", "*.lease" -> lock; anything else -> file.
std::function<std::string(const std::string&)> DefaultRoleClassifier();
std::string ClassifyRole(const std::string& path);

}  // namespace stepfault::faults
