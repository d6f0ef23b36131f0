// MemoryCheckpointStore: checkpoints kept in process memory (the strict version of MAF's
// InMemoryCheckpointManager, docs/engine-semantics.md §4.1).
//
// Commit keeps the canonical dump of the document, a copy no live object can alias. Ids come from
// StoreCheckpointId(seed, session, seq), so a run replays with the same ids. Nothing survives the
// object. Pruning happens only in OnRestorationCompleted, unless hazard_prune_on_read brings back
// the upstream Foundry behaviour (#7796) of pruning inside Retrieve.
// Records (checkpoint_store.h) are kept in a map by key, never pruned.
// Thread-safety: every method is safe for concurrent calls (one mutex).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"

namespace stepfault {

struct MemoryStoreOptions {
  uint64_t seed = 0;
  // HAZARD (#7796): Retrieve prunes the retrieved checkpoint's ancestry before returning.
  bool hazard_prune_on_read = false;
};

class MemoryCheckpointStore final : public CheckpointStore, public RestorationObserver {
 public:
  explicit MemoryCheckpointStore(MemoryStoreOptions options = {}) : options_(options) {}

  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override;
  Result<std::string> Retrieve(const CheckpointInfo& info) override;
  Result<std::vector<StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<CheckpointInfo>& with_parent = std::nullopt) override;
  Status OnRestorationCompleted(const CheckpointInfo& restored) override;
  bool SupportsRecords() const override { return true; }
  Status PutRecord(const std::string& key, std::string_view bytes) override;
  Result<std::string> GetRecord(const std::string& key) override;

 private:
  struct Record {
    StoreEntry entry;
    std::string document;  // canonical JSON dump
  };
  std::vector<StoreEntry> SessionIndexLocked(const std::string& session_id) const;
  Status PruneLocked(const CheckpointInfo& restored);

  const MemoryStoreOptions options_;
  mutable std::mutex mu_;
  uint64_t next_seq_ = 1;
  std::vector<Record> records_;               // commit order
  std::map<std::string, std::string> blobs_;  // the records of PutRecord, by key
};

}  // namespace stepfault
