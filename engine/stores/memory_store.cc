// MemoryCheckpointStore: a vector of records in commit order under one mutex.
#include "engine/stores/memory_store.h"

#include <algorithm>

#include "engine/store_base.h"
#include "engine/store_prune.h"

namespace stepfault {

Result<CheckpointInfo> MemoryCheckpointStore::Commit(const std::string& session_id,
                                                     std::string_view bytes,
                                                     const std::optional<CheckpointInfo>& parent) {
  SF_ASSIGN_OR_RETURN(std::string document, ValidateCommit(session_id, bytes, parent));
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t seq = next_seq_++;
  Record record;
  record.entry.info = CheckpointInfo{session_id, StoreCheckpointId(options_.seed, session_id, seq)};
  if (parent) record.entry.parent_checkpoint_id = parent->checkpoint_id;
  record.document = std::move(document);
  records_.push_back(std::move(record));
  return records_.back().entry.info;
}

Result<std::string> MemoryCheckpointStore::Retrieve(const CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(records_.begin(), records_.end(),
                         [&](const Record& r) { return r.entry.info == info; });
  if (it == records_.end()) {
    return Status::NotFound("no checkpoint " + info.ToString() + " in the memory store");
  }
  std::string document = it->document;
  if (options_.hazard_prune_on_read) SF_RETURN_IF_ERROR(PruneLocked(info));
  return document;
}

Result<std::vector<StoreEntry>> MemoryCheckpointStore::Index(
    const std::string& session_id, const std::optional<CheckpointInfo>& with_parent) {
  std::lock_guard<std::mutex> lock(mu_);
  return FilterByParent(SessionIndexLocked(session_id), with_parent);
}

Status MemoryCheckpointStore::PutRecord(const std::string& key, std::string_view bytes) {
  if (!IsValidRecordKey(key)) return Status::InvalidArgument("invalid record key '" + key + "'");
  std::lock_guard<std::mutex> lock(mu_);
  blobs_[key] = std::string(bytes);
  return Status::Ok();
}

Result<std::string> MemoryCheckpointStore::GetRecord(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blobs_.find(key);
  if (it == blobs_.end()) return Status::NotFound("no record " + key + " in the memory store");
  return it->second;
}

Status MemoryCheckpointStore::OnRestorationCompleted(const CheckpointInfo& restored) {
  std::lock_guard<std::mutex> lock(mu_);
  return PruneLocked(restored);
}

std::vector<StoreEntry> MemoryCheckpointStore::SessionIndexLocked(
    const std::string& session_id) const {
  std::vector<StoreEntry> index;
  for (const Record& r : records_) {
    if (r.entry.info.session_id == session_id) index.push_back(r.entry);
  }
  return index;
}

Status MemoryCheckpointStore::PruneLocked(const CheckpointInfo& restored) {
  return PruneObsolete(
      SessionIndexLocked(restored.session_id), restored,
      [&](const CheckpointInfo& victim) {
        std::erase_if(records_, [&](const Record& r) { return r.entry.info == victim; });
        return Status::Ok();
      },
      nullptr, DeltaBaseFromBytes([&](const CheckpointInfo& info) -> Result<std::string> {
        for (const Record& r : records_) {
          if (r.entry.info == info) return r.document;
        }
        return Status::NotFound(info.ToString());
      }));
}

}  // namespace stepfault
