// KvStore (see kv_store.h).
#include "kv_store.h"

#include <cstdio>
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

// A record: "<meta bytes> <checkpoint bytes> <crc32 hex>\n" + meta JSON + the checkpoint bytes
// verbatim (opaque: not UTF-8, not JSON) + "\n"; the CRC covers meta and bytes.
std::string Frame(const std::string& meta, std::string_view bytes) {
  std::string body = meta;
  body.append(bytes);
  return std::to_string(meta.size()) + " " + std::to_string(bytes.size()) + " " + Hex(Crc32(body)) +
         "\n" + body + "\n";
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
    size_t meta_len = 0, bytes_len = 0;
    char crc[9] = {0};
    if (std::sscanf(header.c_str(), "%zu %zu %8s", &meta_len, &bytes_len, crc) != 3) break;
    const size_t body_at = nl + 1;
    if (meta_len > text.size() || bytes_len > text.size()) break;
    if (body_at + meta_len + bytes_len + 1 > text.size()) break;
    if (text[body_at + meta_len + bytes_len] != '\n') break;
    const std::string_view body = std::string_view(text).substr(body_at, meta_len + bytes_len);
    if (Hex(Crc32(body)) != crc) break;
    const auto j = nlohmann::json::parse(body.substr(0, meta_len), nullptr, false);
    if (j.is_discarded() || !j.is_object()) break;
    Record r{j.value("session", ""), j.value("id", ""), j.value("parent", ""),
             std::string(body.substr(meta_len))};
    by_id_[r.id] = records_.size();
    records_.push_back(std::move(r));
    next_id_ = std::max<uint64_t>(next_id_, std::stoull(records_.back().id.substr(3)) + 1);
    pos = body_at + meta_len + bytes_len + 1;
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
  const nlohmann::json meta = {{"session", r.session}, {"id", r.id}, {"parent", r.parent}};
  if (Status s = log_->Append(Frame(meta.dump(), r.bytes)); !s.ok()) return s;
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
