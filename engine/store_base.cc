// Ids, validation, the parts-writing base class and parent filtering shared by the memory, file
// and SQLite stores.
#include "engine/store_base.h"

#include <nlohmann/json.hpp>

#include "engine/checkpoint.h"
#include "engine/random.h"

namespace stepfault {

std::string StoreCheckpointId(uint64_t seed, const std::string& session_id, uint64_t seq) {
  return DeriveId(seed, session_id + "|" + std::to_string(seq));
}

Result<std::string_view> ValidateCommitView(const std::string& session_id, std::string_view bytes,
                                            const std::optional<CheckpointInfo>& parent,
                                            std::string* canonical) {
  if (session_id.empty()) {
    return Status::InvalidArgument("checkpoint commit needs a non-empty session id");
  }
  if (parent && parent->session_id != session_id) {
    return Status::InvalidArgument("parent checkpoint " + parent->ToString() +
                                   " belongs to another session than '" + session_id +
                                   "'; a parent must be in the same session");
  }
  // A framed checkpoint is kept byte for byte: it is sealed and canonical already, and
  // re-serialising it is exactly the cost the framing exists to avoid.
  if (LooksLikeFramedCheckpoint(bytes)) return bytes;
  nlohmann::json document = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    return Status::InvalidArgument("checkpoint bytes for session '" + session_id +
                                   "' are not one JSON document nor a framed checkpoint; pass "
                                   "EncodeCheckpoint's bytes or a JSON dump");
  }
  *canonical = document.dump();
  return std::string_view(*canonical);
}

Result<std::string> ValidateCommit(const std::string& session_id, std::string_view bytes,
                                   const std::optional<CheckpointInfo>& parent) {
  std::string canonical;
  SF_ASSIGN_OR_RETURN(std::string_view kept,
                      ValidateCommitView(session_id, bytes, parent, &canonical));
  return kept.data() == canonical.data() ? std::move(canonical) : std::string(kept);
}

Result<CheckpointInfo> PartsWritingCheckpointStore::Commit(
    const std::string& session_id, std::string_view bytes,
    const std::optional<CheckpointInfo>& parent) {
  std::string canonical;
  SF_ASSIGN_OR_RETURN(std::string_view document,
                      ValidateCommitView(session_id, bytes, parent, &canonical));
  return CommitValidated(session_id, std::span<const std::string_view>(&document, 1), parent);
}

Result<CheckpointInfo> PartsWritingCheckpointStore::CommitParts(
    const std::string& session_id, std::span<const std::string_view> parts,
    const std::optional<CheckpointInfo>& parent) {
  // A framed checkpoint is kept byte for byte (ValidateCommitView checks only the session and the
  // parent then); anything else is canonicalised from the joined bytes, as Commit does.
  if (parts.empty() || !LooksLikeFramedCheckpoint(parts[0])) {
    return CheckpointStore::CommitParts(session_id, parts, parent);
  }
  std::string canonical;
  SF_RETURN_IF_ERROR(ValidateCommitView(session_id, parts[0], parent, &canonical).status());
  return CommitValidated(session_id, parts, parent);
}

std::vector<StoreEntry> FilterByParent(std::vector<StoreEntry> index,
                                       const std::optional<CheckpointInfo>& with_parent) {
  if (!with_parent) return index;
  std::vector<StoreEntry> children;
  for (StoreEntry& e : index) {
    const bool child = e.has_parent_metadata && e.parent_checkpoint_id &&
                       e.info.session_id == with_parent->session_id &&
                       *e.parent_checkpoint_id == with_parent->checkpoint_id;
    if (child || !e.has_parent_metadata) children.push_back(std::move(e));
  }
  return children;
}

}  // namespace stepfault
