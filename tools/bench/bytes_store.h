// BytesStore: a benchmark test double of CheckpointStore that keeps each committed document as
// bytes in a std::map. It exists so StoreCheckpointManager's encode/decode path can be measured
// without a disk; it is not durable and never prunes. Ids are "cp-" and a zero-padded sequence
// number (deterministic). Follows the CheckpointStore contract (engine/checkpoint_store.h).
// Thread-safety: internally locked.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/checkpoint_store.h"

namespace stepfault::bench {

class BytesStore final : public CheckpointStore {
 public:
  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override;
  Result<std::string> Retrieve(const CheckpointInfo& info) override;
  Result<std::vector<StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<CheckpointInfo>& with_parent = std::nullopt) override;

  // Size of the last committed document and of everything held.
  size_t last_commit_bytes() const;
  size_t total_bytes() const;

 private:
  mutable std::mutex mu_;
  uint64_t seq_ = 0;
  size_t last_commit_bytes_ = 0;
  size_t total_bytes_ = 0;
  std::map<std::string, std::vector<StoreEntry>> index_;  // session -> entries in commit order
  std::map<CheckpointInfo, std::string> bytes_;
};

}  // namespace stepfault::bench
