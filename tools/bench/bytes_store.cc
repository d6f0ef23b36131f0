// BytesStore: committed documents in a std::map.
#include "tools/bench/bytes_store.h"

#include <cstdio>

namespace stepfault::bench {

Result<CheckpointInfo> BytesStore::Commit(const std::string& session_id, std::string_view bytes,
                                          const std::optional<CheckpointInfo>& parent) {
  if (parent && parent->session_id != session_id) {
    return Status::InvalidArgument("parent " + parent->ToString() + " is not in session '" +
                                   session_id + "'; a parent must be in the same session");
  }
  std::lock_guard<std::mutex> lock(mu_);
  char id[32];
  std::snprintf(id, sizeof(id), "cp-%012llu", static_cast<unsigned long long>(++seq_));
  CheckpointInfo info{session_id, id};
  StoreEntry entry{info, std::nullopt, true};
  if (parent) entry.parent_checkpoint_id = parent->checkpoint_id;
  bytes_.emplace(info, std::string(bytes));
  index_[session_id].push_back(std::move(entry));
  last_commit_bytes_ = bytes.size();
  total_bytes_ += bytes.size();
  return info;
}

Result<std::string> BytesStore::Retrieve(const CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = bytes_.find(info);
  if (it == bytes_.end())
    return Status::NotFound("no checkpoint " + info.ToString() + " in the BytesStore");
  return it->second;
}

Result<std::vector<StoreEntry>> BytesStore::Index(
    const std::string& session_id, const std::optional<CheckpointInfo>& with_parent) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<StoreEntry> out;
  auto it = index_.find(session_id);
  if (it == index_.end()) return out;
  for (const StoreEntry& e : it->second) {
    if (with_parent && e.has_parent_metadata &&
        (with_parent->session_id != session_id ||
         e.parent_checkpoint_id != with_parent->checkpoint_id)) {
      continue;
    }
    out.push_back(e);
  }
  return out;
}

size_t BytesStore::last_commit_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_commit_bytes_;
}

size_t BytesStore::total_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_bytes_;
}

}  // namespace stepfault::bench
