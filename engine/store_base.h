// What every checkpoint store shares on commit and on listing: the id rule, input validation, the
// base class of the stores that write a document as parts (file, SQLite), and the parent filter of
// Index. Pruning after a restore is engine/store_prune.h; the contract itself
// engine/checkpoint_store.h.
// Thread-safety: the functions are pure; PartsWritingCheckpointStore as documented below.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/checkpoint_store.h"
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

}  // namespace stepfault
