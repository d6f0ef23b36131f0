// Shared pieces of every checkpoint store: input validation, the id rule, and pruning after a
// successful restore (docs/engine-semantics.md §4.4, the #7796 fix).
//
// Pruning deletes PrunableBeforeRestored(index, restored, base_of) oldest first: MAF's
// ObsoleteBeforeRestored minus the bases kept incremental checkpoints need. Deleting oldest first
// keeps the parent chain nearest `restored` intact, so a prune interrupted by a crash or an error
// is finished by simply pruning again. A delete of an entry that is already gone is not an error.
// Thread-safety: pure functions; callers hold their store's lock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/probe.h"
#include "engine/status.h"

namespace stepfault {

// The store-chosen id of the `seq`-th commit (store-wide sequence) of `session_id`.
std::string StoreCheckpointId(uint64_t seed, const std::string& session_id, uint64_t seq);

// Checks a Commit call: a non-empty session id, a parent (if any) in the same session, and bytes
// that are one JSON document or a framed checkpoint (LooksLikeFramedCheckpoint). On success returns
// what every store keeps and Retrieve returns: the canonical dump of a JSON document (sorted keys,
// no whitespace), or the framed checkpoint's bytes unchanged (its seal is checked on decode).
Result<std::string> ValidateCommit(const std::string& session_id, std::string_view bytes,
                                   const std::optional<CheckpointInfo>& parent);
// The same without copying: a view of `bytes` itself (framed checkpoint) or of *canonical (the
// canonical dump of a JSON document). The view lives as long as both.
Result<std::string_view> ValidateCommitView(const std::string& session_id, std::string_view bytes,
                                            const std::optional<CheckpointInfo>& parent,
                                            std::string* canonical);

// A store that writes a validated document as parts (the file store's gathered write, the SQLite
// store's blob writes). Commit and CommitParts validate as ValidateCommitView does and hand
// CommitValidated what the store keeps: Commit's bytes as one part; a framed checkpoint's parts
// as given (kept byte for byte, so no join); any other CommitParts joined first (a JSON document
// is canonicalised from the whole), as the default CommitParts does. The one place of that rule.
// Thread-safety: that of CommitValidated.
class PartsWritingCheckpointStore : public CheckpointStore {
 public:
  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) final;
  Result<CheckpointInfo> CommitParts(const std::string& session_id,
                                     std::span<const std::string_view> parts,
                                     const std::optional<CheckpointInfo>& parent) final;

 protected:
  // Stores `document` (the parts of a validated body, to be kept joined) as one new checkpoint.
  virtual Result<CheckpointInfo> CommitValidated(const std::string& session_id,
                                                 std::span<const std::string_view> document,
                                                 const std::optional<CheckpointInfo>& parent) = 0;
};

// Keeps the entries of `index` that are children of `with_parent` (plus legacy entries), or all of
// them when there is no filter.
std::vector<StoreEntry> FilterByParent(std::vector<StoreEntry> index,
                                       const std::optional<CheckpointInfo>& with_parent);

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
