// KvStore (see kv_store.h).
#include "kv_store.h"

#include <nlohmann/json.hpp>

namespace kvstore {
namespace {

using stepfault::Result;
using stepfault::Status;

uint32_t Crc32(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::string Hex(uint32_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 7; i >= 0; --i, v >>= 4) out[i] = digits[v & 15];
  return out;
}

std::string Frame(const std::string& payload) {
  return std::to_string(payload.size()) + " " + Hex(Crc32(payload)) + "\n" + payload + "\n";
}

}  // namespace

Result<std::unique_ptr<KvStore>> KvStore::Open(stepfault::Env* env, std::string dir) {
  std::unique_ptr<KvStore> store(new KvStore(env, std::move(dir)));
  if (Status s = store->Load(); !s.ok()) return s;
  return store;
}

Status KvStore::Load() {
  const std::string path = dir_ + "/kv.log";
  auto exists = env_->FileExists(path);
  if (!exists.ok()) return exists.status();
  std::string text;
  if (*exists) {
    auto bytes = env_->ReadFile(path);
    if (!bytes.ok()) return bytes.status();
    text = std::move(*bytes);
  }
  size_t pos = 0;
  while (pos < text.size()) {  // parse intact records; stop at the first damaged one
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;
    const std::string header = text.substr(pos, nl - pos);
    const size_t space = header.find(' ');
    if (space == std::string::npos || header.size() != space + 9) break;
    size_t len = 0;
    try {
      len = std::stoul(header.substr(0, space));
    } catch (...) {
      break;
    }
    if (nl + 1 + len + 1 > text.size() || text[nl + 1 + len] != '\n') break;
    const std::string payload = text.substr(nl + 1, len);
    if (Hex(Crc32(payload)) != header.substr(space + 1)) break;
    const auto j = nlohmann::json::parse(payload, nullptr, false);
    if (j.is_discarded() || !j.is_object()) break;
    Record r{j.value("session", ""), j.value("id", ""), j.value("parent", ""),
             j.value("bytes", "")};
    by_id_[r.id] = records_.size();
    records_.push_back(std::move(r));
    next_id_ = std::max<uint64_t>(next_id_, std::stoull(records_.back().id.substr(3)) + 1);
    pos = nl + 1 + len + 1;
  }
  if (!*exists || pos < text.size()) {
    // A new log, or a torn tail: publish exactly the intact prefix before appending after it.
    auto tmp = env_->NewWritableFile(path + ".tmp");
    if (!tmp.ok()) return tmp.status();
    if (Status s = (*tmp)->Append(std::string_view(text).substr(0, pos)); !s.ok()) return s;
    if (Status s = (*tmp)->Sync(); !s.ok()) return s;
    if (Status s = (*tmp)->Close(); !s.ok()) return s;
    if (Status s = env_->RenameFile(path + ".tmp", path); !s.ok()) return s;
    if (Status s = env_->SyncDir(dir_); !s.ok()) return s;
  }
  auto log = env_->NewAppendableFile(path);
  if (!log.ok()) return log.status();
  log_ = std::move(*log);
  return Status::Ok();
}

Result<stepfault::CheckpointInfo> KvStore::Commit(
    const std::string& session_id, std::string_view bytes,
    const std::optional<stepfault::CheckpointInfo>& parent) {
  std::lock_guard<std::mutex> lock(mu_);
  Record r{session_id, "kv-" + std::to_string(next_id_), parent ? parent->checkpoint_id : "",
           std::string(bytes)};
  const nlohmann::json j = {
      {"session", r.session}, {"id", r.id}, {"parent", r.parent}, {"bytes", r.bytes}};
  if (Status s = log_->Append(Frame(j.dump())); !s.ok()) return s;
  if (Status s = log_->Sync(); !s.ok()) return s;
  ++next_id_;
  by_id_[r.id] = records_.size();
  records_.push_back(r);
  return stepfault::CheckpointInfo{r.session, r.id};
}

Result<std::string> KvStore::Retrieve(const stepfault::CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_id_.find(info.checkpoint_id);
  if (it == by_id_.end() || records_[it->second].session != info.session_id) {
    return Status::NotFound("no checkpoint " + info.ToString());
  }
  return records_[it->second].bytes;
}

Result<std::vector<stepfault::StoreEntry>> KvStore::Index(
    const std::string& session_id, const std::optional<stepfault::CheckpointInfo>& with_parent) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<stepfault::StoreEntry> out;
  for (const Record& r : records_) {
    if (r.session != session_id) continue;
    // A root (no parent) is nobody's child, even under an empty parent id.
    if (with_parent && (r.parent.empty() || r.parent != with_parent->checkpoint_id)) continue;
    stepfault::StoreEntry e;
    e.info = {r.session, r.id};
    if (!r.parent.empty()) e.parent_checkpoint_id = r.parent;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace kvstore
