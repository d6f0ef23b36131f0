// The two checkpoint managers.
#include "engine/checkpoint_manager.h"

#include "engine/random.h"
#include "engine/topology_record.h"

namespace stepfault {

// K = 128, by measurement (stepfault-bench, docs/performance.md): a delta of a step that
// changed nothing is under 1 KB, so the stored bytes per step of an unchanged 2 MB state are about
// 1/K of it plus that KB: 0.8% at K = 128 (the target is 1%; K = 16 or 32 would store 6%
// or 3%). The price is the chain a restore reads: at most K - 1 small deltas and one full
// snapshot. The scenarios' runs are shorter than K, so every checkpoint they write after the first
// of a manager is a delta, and exploration crashes them in the middle of chains.
const int kDefaultFullSnapshotEvery = 128;

Result<CheckpointInfo> InMemoryCheckpointManager::Commit(const Checkpoint& checkpoint) {
  return Keep(std::make_shared<const Checkpoint>(checkpoint));
}

Result<CheckpointInfo> InMemoryCheckpointManager::CommitOwned(Checkpoint&& checkpoint) {
  return Keep(std::make_shared<const Checkpoint>(std::move(checkpoint)));
}

std::string InMemoryCheckpointManager::IdOf(const std::string& session_id, uint64_t seq) {
  // The id's input "<session>|<seq>", built in a kept buffer (no allocation per commit).
  id_input_.assign(session_id);
  id_input_ += '|';
  id_input_ += std::to_string(seq);
  return DeriveId(seed_, id_input_);
}

Result<CheckpointInfo> InMemoryCheckpointManager::Keep(
    std::shared_ptr<const Checkpoint> checkpoint) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t seq = ++seq_;
  const std::string& session_id = checkpoint->session_id;
  std::string id = IdOf(session_id, seq);
  sessions_[session_id].entries.push_back(Entry{seq, std::move(checkpoint)});
  return CheckpointInfo{session_id, std::move(id)};
}

void InMemoryCheckpointManager::IndexIds(const std::string& session_id, Session& session) {
  while (session.ids.size() < session.entries.size()) {
    const size_t index = session.ids.size();
    session.ids.push_back(IdOf(session_id, session.entries[index].seq));
    // emplace keeps the first of equal ids, as indexing at each commit did.
    session.by_id.emplace(session.ids.back(), index);
  }
}

Result<std::shared_ptr<const Checkpoint>> InMemoryCheckpointManager::Lookup(
    const CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto s = sessions_.find(info.session_id);
  if (s != sessions_.end()) {
    IndexIds(s->first, s->second);
    auto it = s->second.by_id.find(info.checkpoint_id);
    if (it != s->second.by_id.end()) return s->second.entries[it->second].checkpoint;
  }
  return Status::NotFound("no checkpoint " + info.ToString() + " in the in-memory manager");
}

Result<std::vector<CheckpointInfo>> InMemoryCheckpointManager::Index(
    const std::string& session_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return std::vector<CheckpointInfo>();
  IndexIds(it->first, it->second);
  std::vector<CheckpointInfo> out;
  out.reserve(it->second.ids.size());
  for (const std::string& id : it->second.ids) out.push_back(CheckpointInfo{session_id, id});
  return out;
}

StoreCheckpointManager::StoreCheckpointManager(CheckpointStore* store,
                                               StoreCheckpointOptions options)
    : store_(store),
      options_(options),
      records_(options.topology_records && store->SupportsRecords()) {
  SF_CHECK(options_.full_every >= 1);
}

Result<std::string> StoreCheckpointManager::RecordFor(const Checkpoint& checkpoint) {
  if (!records_ || checkpoint.workflow->is_null()) return std::string();
  if (!last_key_.empty() && checkpoint.workflow.SharesWith(last_signature_)) return last_key_;
  std::string key = TopologyRecordKey(*checkpoint.workflow);
  if (records_known_.count(key) == 0) {
    // Before the first checkpoint that refers to it: a checkpoint is never durable without it.
    // An intact record of this key (an earlier life's) is kept as it is, not written again.
    Result<std::string> stored = store_->GetRecord(key);
    if (stored.ok()) {
      Result<Json> signature = DecodeTopologyRecord(*stored, key);
      if (signature.ok() && *signature == *checkpoint.workflow) {
        records_known_.emplace(key, checkpoint.workflow);
      }
    }
  }
  if (records_known_.count(key) == 0) {
    Status put = store_->PutRecord(key, EncodeTopologyRecord(*checkpoint.workflow));
    if (!put.ok())
      return put.WithContext("storing the topology record of " + checkpoint.session_id);
    records_known_.emplace(key, checkpoint.workflow);
  }
  last_signature_ = checkpoint.workflow;
  last_key_ = key;
  return key;
}

Result<SharedJson> StoreCheckpointManager::ResolveRecord(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto known = records_known_.find(key);
    if (known != records_known_.end()) return known->second;
  }
  Result<std::string> bytes = store_->GetRecord(key);
  if (!bytes.ok()) {
    return Status::Corruption("its topology record " + key +
                              " cannot be read: " + bytes.status().ToString());
  }
  Result<Json> signature = DecodeTopologyRecord(*bytes, key);
  if (!signature.ok()) return Status::Corruption(signature.status().message());
  SharedJson shared(std::move(signature).value());
  std::lock_guard<std::mutex> lock(mu_);
  return records_known_.emplace(key, std::move(shared)).first->second;
}

Result<CheckpointInfo> StoreCheckpointManager::Commit(const Checkpoint& checkpoint) {
  // A shallow copy: values are shared (copy on write), so keeping it as the next base is cheap.
  return CommitShared(std::make_shared<const Checkpoint>(checkpoint));
}

Result<CheckpointInfo> StoreCheckpointManager::CommitOwned(Checkpoint&& checkpoint) {
  return CommitShared(std::make_shared<const Checkpoint>(std::move(checkpoint)));
}

void StoreCheckpointManager::RequestFullSnapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  previous_.clear();
}

Result<CheckpointInfo> StoreCheckpointManager::CommitShared(
    std::shared_ptr<const Checkpoint> checkpoint) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string& session = checkpoint->session_id;
  auto prev = previous_.find(session);
  // A delta only against the previous commit of this manager, which is known to be stored: the
  // base of a delta is always its parent.
  const bool delta = options_.full_every > 1 && prev != previous_.end() && checkpoint->parent &&
                     *checkpoint->parent == prev->second.info &&
                     prev->second.chain + 1 < options_.full_every;
  // Handed over as parts (checkpoint.h, EncodedCheckpoint): a store that writes them gathered
  // never copies the blobs into one buffer; `checkpoint` keeps the values they point into alive.
  Result<std::string> ref = RecordFor(*checkpoint);
  if (!ref.ok()) {
    previous_.erase(session);
    return ref.status();
  }
  // The delta-from-wrong-base mutant diffs against the chain's full snapshot, naming the parent.
  const Checkpoint* diff_base = nullptr;
  if (delta) {
    diff_base = options_.delta_from_wrong_base && prev->second.chain_start
                    ? prev->second.chain_start.get()
                    : prev->second.checkpoint.get();
  }
  const EncodedCheckpoint encoded =
      delta ? EncodeCheckpointDeltaParts(*checkpoint, *diff_base, prev->second.info.checkpoint_id,
                                         *ref)
            : EncodeCheckpointParts(*checkpoint, *ref);
  const std::vector<std::string_view> parts = encoded.Parts();
  Result<CheckpointInfo> info = store_->CommitParts(session, parts, checkpoint->parent);
  if (!info.ok()) {
    previous_.erase(session);  // whatever happened, the next checkpoint is full
    return info;
  }
  if (options_.full_every > 1) {
    const int chain = delta ? prev->second.chain + 1 : 0;
    std::shared_ptr<const Checkpoint> chain_start;
    if (options_.delta_from_wrong_base) chain_start = delta ? prev->second.chain_start : checkpoint;
    previous_[session] = Previous{*info, std::move(checkpoint), chain, std::move(chain_start)};
  }
  return info;
}

Result<std::shared_ptr<const Checkpoint>> StoreCheckpointManager::Lookup(
    const CheckpointInfo& info) {
  SF_ASSIGN_OR_RETURN(std::string bytes, store_->Retrieve(info));
  Result<Checkpoint> decoded = ResolveCheckpoint(
      bytes,
      [&](const std::string& id) -> Result<std::string> {
        return store_->Retrieve(CheckpointInfo{info.session_id, id});
      },
      options_.delta_chain_newest_first ? ChainOrder::kNewestFirstMutant
                                        : ChainOrder::kOldestFirst);
  if (!decoded.ok()) return decoded.status().WithContext("checkpoint " + info.ToString());
  if (decoded->session_id != info.session_id) {
    return Status::Corruption("checkpoint " + info.ToString() + " belongs to session '" +
                              decoded->session_id + "'");
  }
  if (!decoded->workflow_ref.empty()) {
    Result<SharedJson> signature = ResolveRecord(decoded->workflow_ref);
    if (!signature.ok()) return signature.status().WithContext("checkpoint " + info.ToString());
    decoded->workflow = std::move(signature).value();
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
