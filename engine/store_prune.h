// Pruning after a successful restore, shared by every checkpoint store that prunes
// (docs/engine-semantics.md §4.4, the #7796 fix). What every store does on commit (ids, validation,
// the parts-writing base class) is engine/store_base.h.
//
// Pruning deletes PrunableBeforeRestored(index, restored, base_of) oldest first: MAF's
// ObsoleteBeforeRestored minus the bases kept incremental checkpoints need. Deleting oldest first
// keeps the parent chain nearest `restored` intact, so a prune interrupted by a crash or an error
// is finished by simply pruning again. A delete of an entry that is already gone is not an error.
// Thread-safety: pure functions; callers hold their store's lock.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/probe.h"
#include "engine/status.h"

namespace stepfault {

// The base an incremental checkpoint depends on (CheckpointDeltaBase of its stored bytes);
// nullopt for a full checkpoint and for one that cannot be read (it depends on nothing usable).
using DeltaBaseOf = std::function<std::optional<std::string>(const CheckpointInfo&)>;

// ObsoleteBeforeRestored(session_index, restored) minus every checkpoint that a kept checkpoint's
// chain of deltas reaches (through `base_of`; null: every checkpoint is full), in commit order.
// Pruning a base would damage every kept delta built on it, so it stays until nothing kept needs
// it (a deliberate deviation from MAF's rule, which has no deltas).
std::vector<CheckpointInfo> PrunableBeforeRestored(const std::vector<StoreEntry>& session_index,
                                                   const CheckpointInfo& restored,
                                                   const DeltaBaseOf& base_of);

// Deletes PrunableBeforeRestored(session_index, restored, base_of) through `erase`, oldest first.
// `erase` returning kNotFound counts as done. Stops at the first other error and returns it with
// context; entries erased before it stay erased.
Status PruneObsolete(const std::vector<StoreEntry>& session_index, const CheckpointInfo& restored,
                     const std::function<Status(const CheckpointInfo&)>& erase,
                     Probe* probe = nullptr, const DeltaBaseOf& base_of = nullptr);
// A DeltaBaseOf over stored bytes read by `read` (an unreadable entry depends on nothing).
DeltaBaseOf DeltaBaseFromBytes(std::function<Result<std::string>(const CheckpointInfo&)> read);

}  // namespace stepfault
