// The two checkpoint managers.
#include "engine/checkpoint_manager.h"

#include "engine/random.h"

namespace stepfault {

Result<CheckpointInfo> InMemoryCheckpointManager::Commit(const Checkpoint& checkpoint) {
  return Keep(std::make_shared<const Checkpoint>(checkpoint));
}

Result<CheckpointInfo> InMemoryCheckpointManager::CommitOwned(Checkpoint&& checkpoint) {
  return Keep(std::make_shared<const Checkpoint>(std::move(checkpoint)));
}

Result<CheckpointInfo> InMemoryCheckpointManager::Keep(
    std::shared_ptr<const Checkpoint> checkpoint) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t seq = ++seq_;
  CheckpointInfo info{checkpoint->session_id,
                      DeriveId(seed_, checkpoint->session_id + "|" + std::to_string(seq))};
  checkpoints_[info] = std::move(checkpoint);
  index_[info.session_id].push_back(info);
  return info;
}

Result<std::shared_ptr<const Checkpoint>> InMemoryCheckpointManager::Lookup(
    const CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = checkpoints_.find(info);
  if (it == checkpoints_.end()) {
    return Status::NotFound("no checkpoint " + info.ToString() + " in the in-memory manager");
  }
  return it->second;
}

Result<std::vector<CheckpointInfo>> InMemoryCheckpointManager::Index(
    const std::string& session_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(session_id);
  if (it == index_.end()) return std::vector<CheckpointInfo>();
  return it->second;
}

Result<CheckpointInfo> StoreCheckpointManager::Commit(const Checkpoint& checkpoint) {
  return store_->Commit(checkpoint.session_id, EncodeCheckpoint(checkpoint), checkpoint.parent);
}

Result<std::shared_ptr<const Checkpoint>> StoreCheckpointManager::Lookup(
    const CheckpointInfo& info) {
  SF_ASSIGN_OR_RETURN(std::string bytes, store_->Retrieve(info));
  Result<Checkpoint> decoded = DecodeCheckpoint(bytes);
  if (!decoded.ok()) return decoded.status().WithContext("checkpoint " + info.ToString());
  if (decoded->session_id != info.session_id) {
    return Status::Corruption("checkpoint " + info.ToString() + " belongs to session '" +
                              decoded->session_id + "'");
  }
  return std::shared_ptr<const Checkpoint>(
      std::make_shared<Checkpoint>(std::move(decoded).value()));
}

Result<std::vector<CheckpointInfo>> StoreCheckpointManager::Index(const std::string& session_id) {
  SF_ASSIGN_OR_RETURN(std::vector<StoreEntry> entries, store_->Index(session_id));
  std::vector<CheckpointInfo> out;
  out.reserve(entries.size());
  for (StoreEntry& e : entries) out.push_back(std::move(e.info));
  return out;
}

bool StoreCheckpointManager::NotifyRestored(const CheckpointInfo& info, Status* observer_status) {
  auto* observer = dynamic_cast<RestorationObserver*>(store_);
  if (observer == nullptr) {
    *observer_status = Status::Ok();
    return false;
  }
  *observer_status = observer->OnRestorationCompleted(info);
  return true;
}

}  // namespace stepfault
