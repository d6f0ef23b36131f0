// CheckpointManager: where a run commits its checkpoints and finds them again (MAF's
// CheckpointManager facade, docs/engine-semantics.md §4).
//
// InMemoryCheckpointManager keeps Checkpoint objects. Commit stores a copy (CommitOwned takes the
// run's fresh export, which nothing else holds). Both copies are shallow: state values and fan-in
// buffers are immutable shared objects (copy on write, shared_json.h), so a stored checkpoint
// shares what did not change with its parent and with the live run, and later changes to the run
// never reach it: the run replaces a value it writes and copies a shared fan-in buffer before
// changing it (with the fan-in-aliasing hazard it changes the buffer in place and the stored
// checkpoint changes under it, as MAF's did before #6574).
// StoreCheckpointManager encodes checkpoints (checkpoint.h) into any CheckpointStore and decodes
// them on lookup; it forwards restoration notices to a store that is a RestorationObserver. Over a
// store that SupportsRecords() (and unless options.topology_records is false) a checkpoint names
// its topology by "workflow_ref" instead of carrying the signature (a deliberate deviation from
// MAF, docs/engine-semantics.md section 10, issue 27): the manager puts the topology record
// (engine/topology_record.h) before the first checkpoint that refers to it and resolves it on
// Lookup, so a restore sees the full signature and the topology check compares it in full. A
// missing or damaged record is kCorruption for every checkpoint that refers to it.
// Thread-safety: both managers are safe for concurrent use.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_store.h"
#include "engine/probe.h"
#include "engine/status.h"

namespace stepfault {

class CheckpointManager {
 public:
  virtual ~CheckpointManager() = default;
  // Stores `checkpoint` (whose parent field names its parent) and returns its new identity.
  virtual Result<CheckpointInfo> Commit(const Checkpoint& checkpoint) = 0;
  // The same for a checkpoint the caller gives up (the run's fresh export): a manager that keeps
  // Checkpoint objects takes it without a copy. Default: Commit(checkpoint).
  virtual Result<CheckpointInfo> CommitOwned(Checkpoint&& checkpoint) { return Commit(checkpoint); }
  virtual Result<std::shared_ptr<const Checkpoint>> Lookup(const CheckpointInfo& info) = 0;
  // The session's checkpoints in commit order.
  virtual Result<std::vector<CheckpointInfo>> Index(const std::string& session_id) = 0;
  // Called after a restore of `info` fully succeeded. Returns true when an observer was notified
  // (it may have deleted checkpoints, so the caller re-reads its index); the observer's failure is
  // returned in *observer_status and never fails the restore.
  virtual bool NotifyRestored(const CheckpointInfo& info, Status* observer_status) = 0;
};

class InMemoryCheckpointManager final : public CheckpointManager {
 public:
  explicit InMemoryCheckpointManager(uint64_t seed = 0) : seed_(seed) {}
  Result<CheckpointInfo> Commit(const Checkpoint& checkpoint) override;
  Result<CheckpointInfo> CommitOwned(Checkpoint&& checkpoint) override;
  Result<std::shared_ptr<const Checkpoint>> Lookup(const CheckpointInfo& info) override;
  Result<std::vector<CheckpointInfo>> Index(const std::string& session_id) override;
  bool NotifyRestored(const CheckpointInfo&, Status* observer_status) override {
    *observer_status = Status::Ok();
    return false;
  }

 private:
  std::mutex mu_;
  uint64_t seed_;
  uint64_t seq_ = 0;
  struct Entry {
    uint64_t seq;  // the commit sequence number its id derives from
    std::shared_ptr<const Checkpoint> checkpoint;
  };
  struct Session {
    // Commit order; the checkpoints are freed in the order they were made (sequentially through
    // memory, where a hash map's order made every free a cache miss: docs/performance.md,
    // "The in-memory rings").
    std::deque<Entry> entries;
    // The ids of entries[0, ids.size()), derived from their sequence numbers when first asked
    // for (Lookup, Index), and by_id, a view of each (a deque never moves a string it keeps).
    // A commit keeps no copy of the id it returns and adds no hash node: a run that never looks
    // up pays nothing for it, one that does pays the same, at its next Lookup or Index.
    // Hashed, not ordered: only looked up, never iterated, so no order reaches output.
    std::deque<std::string> ids;
    std::unordered_map<std::string_view, size_t> by_id;
  };
  std::map<std::string, Session> sessions_;
  std::string id_input_;  // IdOf's scratch buffer, under mu_
  // DeriveId(seed_, "<session>|<seq>"). REQUIRES: mu_ held.
  std::string IdOf(const std::string& session_id, uint64_t seq);
  // Derives and indexes the ids of the entries committed since the last call. REQUIRES: mu_ held.
  void IndexIds(const std::string& session_id, Session& session);
  Result<CheckpointInfo> Keep(std::shared_ptr<const Checkpoint> checkpoint);
};

// The default K of StoreCheckpointOptions (defined and justified in checkpoint_manager.cc).
extern const int kDefaultFullSnapshotEvery;

struct StoreCheckpointOptions {
  // Incremental checkpoints: a full snapshot every `full_every` commits of a chain, deltas
  // against the parent in between (checkpoint.h). 1: every checkpoint is full (MAF's behaviour).
  // A checkpoint is full as well when its parent is not the manager's previous commit in that
  // session (the first commit, after a restore or resume, or after a failed commit), and after
  // RequestFullSnapshot. Default kDefaultFullSnapshotEvery (128, see checkpoint_manager.cc).
  int full_every = kDefaultFullSnapshotEvery;
  // Topology records: refer to the topology signature by a record stored once (when the store
  // SupportsRecords()) instead of carrying it in every checkpoint. false: MAF's form, the signature
  // inline in every checkpoint (checkpoints=full, the differential's engine side).
  bool topology_records = true;
  // Mutants (EngineProfile's delta-from-wrong-base and delta-chain-newest-first, issue 29): a
  // delta computed against its chain's full snapshot while naming its parent as base; a restore
  // that applies a chain's deltas newest first. Off in every real use.
  bool delta_from_wrong_base = false;
  bool delta_chain_newest_first = false;
};

class StoreCheckpointManager final : public CheckpointManager {
 public:
  // REQUIRES: store outlives the manager; options.full_every >= 1.
  explicit StoreCheckpointManager(CheckpointStore* store, StoreCheckpointOptions options = {});
  Result<CheckpointInfo> Commit(const Checkpoint& checkpoint) override;
  Result<CheckpointInfo> CommitOwned(Checkpoint&& checkpoint) override;
  // Resolves a delta's chain (ResolveCheckpoint): a damaged or missing link is kCorruption.
  Result<std::shared_ptr<const Checkpoint>> Lookup(const CheckpointInfo& info) override;
  Result<std::vector<CheckpointInfo>> Index(const std::string& session_id) override;
  bool NotifyRestored(const CheckpointInfo& info, Status* observer_status) override;
  // The next commit of every session is a full snapshot (a snapshot on demand).
  void RequestFullSnapshot();

 private:
  struct Previous {  // the last commit of a session, the base of the next delta
    CheckpointInfo info;
    std::shared_ptr<const Checkpoint> checkpoint;
    int chain = 0;  // deltas since the last full snapshot
    // The full snapshot that starts the chain (kept only under the delta-from-wrong-base mutant).
    std::shared_ptr<const Checkpoint> chain_start;
  };
  Result<CheckpointInfo> CommitShared(std::shared_ptr<const Checkpoint> checkpoint);
  // The record key of `checkpoint`'s signature, the record put in the store first if this manager
  // has not put or read it yet; "" when checkpoints carry the signature inline. REQUIRES: mu_ held.
  Result<std::string> RecordFor(const Checkpoint& checkpoint);
  // The signature the record `key` holds (read and verified once per manager): kCorruption when
  // it is missing or damaged.
  Result<SharedJson> ResolveRecord(const std::string& key);

  CheckpointStore* store_;
  StoreCheckpointOptions options_;
  const bool records_;  // topology records in use
  std::mutex mu_;
  std::map<std::string, Previous> previous_;  // by session
  // Signatures this manager put or verified, by record key; and the last signature object committed
  // with its key (a run's checkpoints share one signature object: no digest per commit).
  std::map<std::string, SharedJson> records_known_;
  SharedJson last_signature_;
  std::string last_key_;
};

}  // namespace stepfault
