// CheckpointStore::Latest, the default CommitParts and the pruning rule.
#include "engine/checkpoint_store.h"

#include <map>
#include <set>

namespace stepfault {

Result<std::optional<CheckpointInfo>> CheckpointStore::Latest(const std::string& session_id) {
  SF_ASSIGN_OR_RETURN(std::vector<StoreEntry> index, Index(session_id));
  if (index.empty()) return std::optional<CheckpointInfo>();
  return std::optional<CheckpointInfo>(index.back().info);
}

Result<CheckpointInfo> CheckpointStore::CommitParts(const std::string& session_id,
                                                    std::span<const std::string_view> parts,
                                                    const std::optional<CheckpointInfo>& parent) {
  if (parts.size() == 1) return Commit(session_id, parts[0], parent);
  size_t total = 0;
  for (std::string_view p : parts) total += p.size();
  std::string joined;
  joined.reserve(total);
  for (std::string_view p : parts) joined.append(p);
  return Commit(session_id, joined, parent);
}

Status CheckpointStore::PutRecord(const std::string& key, std::string_view bytes) {
  (void)bytes;
  return Status::FailedPrecondition("this checkpoint store keeps no records (record " + key +
                                    "); its checkpoints carry everything inline");
}

Result<std::string> CheckpointStore::GetRecord(const std::string& key) {
  return Status::NotFound("this checkpoint store keeps no records (record " + key + ")");
}

bool IsValidRecordKey(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

std::vector<CheckpointInfo> ObsoleteBeforeRestored(const std::vector<StoreEntry>& session_index,
                                                   const CheckpointInfo& restored) {
  size_t position = session_index.size();
  for (size_t i = 0; i < session_index.size(); ++i) {
    if (session_index[i].info == restored) {
      position = i;
      break;
    }
  }
  if (position == session_index.size() || position == 0) return {};

  std::map<std::string, const StoreEntry*> by_id;
  for (const StoreEntry& e : session_index) by_id.emplace(e.info.checkpoint_id, &e);
  // Walk the parent chain; bounded by the index size so a cycle in damaged metadata cannot loop.
  std::set<std::string> ancestors;
  const StoreEntry* cursor = &session_index[position];
  for (size_t hops = 0; hops < session_index.size(); ++hops) {
    if (!cursor->has_parent_metadata || !cursor->parent_checkpoint_id) break;
    auto it = by_id.find(*cursor->parent_checkpoint_id);
    if (it == by_id.end() || !ancestors.insert(it->first).second) break;
    cursor = it->second;
  }

  std::vector<CheckpointInfo> obsolete;
  for (size_t i = 0; i < position; ++i) {
    const StoreEntry& e = session_index[i];
    const bool legacy = !e.has_parent_metadata;
    const bool root = e.has_parent_metadata && !e.parent_checkpoint_id;
    if (legacy || root || ancestors.count(e.info.checkpoint_id) > 0) obsolete.push_back(e.info);
  }
  return obsolete;
}

Result<size_t> FallBackToNewestIntact(const std::vector<StoreEntry>& index,
                                      const std::function<Status(const StoreEntry&)>& attempt) {
  Status last_error = Status::NotFound("there is no checkpoint to resume");
  for (size_t i = index.size(); i-- > 0;) {
    last_error = attempt(index[i]);
    if (last_error.ok()) return i;
    if (last_error.code() != StatusCode::kCorruption) break;
  }
  return last_error;
}

}  // namespace stepfault
