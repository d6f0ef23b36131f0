// FileCheckpointStore: envelope encoding and verification, the two write paths, and recovery.
#include "engine/stores/file_store.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "engine/crc32c.h"
#include "engine/store_prune.h"

namespace stepfault {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "stepfault.checkpoint-file";
constexpr size_t kIdLength = 32;

struct Decoded {
  uint64_t seq = 0;
  StoreEntry entry;
  std::string document;  // canonical dump of "checkpoint"
};

bool IsLowerHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// "<digits>-<32 hex>.json" -> (seq, id); anything else is not a checkpoint file.
std::optional<std::pair<uint64_t, std::string>> ParseFileName(std::string_view name) {
  constexpr std::string_view kExt = ".json";
  if (name.size() <= kExt.size() || name.substr(name.size() - kExt.size()) != kExt) return {};
  name.remove_suffix(kExt.size());
  const size_t dash = name.find('-');
  if (dash == std::string_view::npos || dash < 10 || dash > 19) return {};
  std::string_view digits = name.substr(0, dash), id = name.substr(dash + 1);
  uint64_t seq = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return {};
    seq = seq * 10 + static_cast<uint64_t>(c - '0');
  }
  if (id.size() != kIdLength || !IsLowerHex(id)) return {};
  return std::make_pair(seq, std::string(id));
}

std::string Encode(uint64_t seq, const StoreEntry& entry, const std::string& document) {
  json envelope = {
      {"format", kFormat},
      {"version", 1},
      {"seq", seq},
      {"session_id", entry.info.session_id},
      {"checkpoint_id", entry.info.checkpoint_id},
      {"parent_checkpoint_id",
       entry.parent_checkpoint_id ? json(*entry.parent_checkpoint_id) : json(nullptr)},
      {"checkpoint", json::parse(document)},
  };
  envelope["checksum"] = Crc32cTag(envelope.dump());
  return envelope.dump(1) + "\n";  // indented for people; the checksum is over the canonical form
}

// Verifies structure, checksum and agreement with the file name.
Result<Decoded> Decode(const std::string& file_name, std::string_view content) {
  auto bad = [&](const std::string& why) { return Status::Corruption(file_name + ": " + why); };
  if (content.empty()) return bad("file is empty (a write that never completed)");
  json envelope = json::parse(content, nullptr, /*allow_exceptions=*/false);
  if (envelope.is_discarded() || !envelope.is_object()) return bad("not a JSON object (torn?)");
  auto field = [&](const char* key) -> const json* {
    auto it = envelope.find(key);
    return it == envelope.end() ? nullptr : &*it;
  };
  const json* format = field("format");
  const json* version = field("version");
  const json* seq = field("seq");
  const json* session = field("session_id");
  const json* id = field("checkpoint_id");
  const json* parent = field("parent_checkpoint_id");
  const json* checksum = field("checksum");
  if (!format || *format != kFormat) return bad("format is not " + std::string(kFormat));
  if (!version || *version != 1) return bad("unsupported version");
  if (!seq || !seq->is_number_unsigned()) return bad("seq missing or not an unsigned integer");
  if (!session || !session->is_string() || session->get<std::string>().empty()) {
    return bad("session_id missing or empty");
  }
  if (!id || !id->is_string()) return bad("checkpoint_id missing");
  if (!parent || !(parent->is_string() || parent->is_null())) {
    return bad("parent_checkpoint_id must be a string or null");
  }
  if (!field("checkpoint")) return bad("checkpoint document missing");
  if (!checksum || !checksum->is_string()) return bad("checksum missing");
  if (envelope.size() != 8) return bad("unexpected fields in the envelope");
  const std::string stored_checksum = checksum->get<std::string>();
  json unsealed = envelope;
  unsealed.erase("checksum");
  const std::string actual = Crc32cTag(unsealed.dump());
  if (actual != stored_checksum) {
    return bad("checksum mismatch (stored " + stored_checksum + ", computed " + actual + ")");
  }
  Decoded out;
  out.seq = seq->get<uint64_t>();
  out.entry.info = CheckpointInfo{session->get<std::string>(), id->get<std::string>()};
  if (parent->is_string()) out.entry.parent_checkpoint_id = parent->get<std::string>();
  out.document = envelope["checkpoint"].dump();
  auto named = ParseFileName(file_name);
  if (!named || named->first != out.seq || named->second != out.entry.info.checkpoint_id) {
    return bad("seq/checkpoint_id inside the file disagree with its name");
  }
  return out;
}

std::string IndexLine(uint64_t seq, const StoreEntry& e) {
  json line = {{"seq", seq},
               {"session_id", e.info.session_id},
               {"checkpoint_id", e.info.checkpoint_id},
               {"parent_checkpoint_id",
                e.parent_checkpoint_id ? json(*e.parent_checkpoint_id) : json(nullptr)},
               {"file", FileCheckpointStore::FileNameFor(seq, e.info.checkpoint_id)}};
  return line.dump() + "\n";
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string FileCheckpointStore::FileNameFor(uint64_t seq, const std::string& checkpoint_id) {
  char digits[32];
  std::snprintf(digits, sizeof(digits), "%010llu", static_cast<unsigned long long>(seq));
  return std::string(digits) + "-" + checkpoint_id + ".json";
}

std::optional<std::pair<uint64_t, std::string>> FileCheckpointStore::ParseCheckpointFileName(
    std::string_view name) {
  return ParseFileName(name);
}

Result<FileCheckpointStore::DecodedFile> FileCheckpointStore::DecodeFile(
    const std::string& file_name, std::string_view content) {
  SF_ASSIGN_OR_RETURN(Decoded d, Decode(file_name, content));
  return DecodedFile{d.seq, std::move(d.entry), std::move(d.document)};
}

Result<std::unique_ptr<FileCheckpointStore>> FileCheckpointStore::Open(Env* env, std::string dir,
                                                                       FileStoreOptions options) {
  SF_RETURN_IF_ERROR(env->CreateDirIfMissing(dir));
  auto lock = env->LockFile(JoinPath(dir, "LOCK"));
  if (!lock.ok()) {
    if (lock.status().code() == StatusCode::kBusy) {
      return Status::Busy("checkpoint directory " + dir +
                          " is in use by another store; close that store (or stop the process "
                          "holding " +
                          JoinPath(dir, "LOCK") + ") before opening it again");
    }
    return lock.status().WithContext("locking checkpoint directory " + dir);
  }
  std::unique_ptr<FileCheckpointStore> store(
      new FileCheckpointStore(env, std::move(dir), options, std::move(lock).value()));
  SF_ASSIGN_OR_RETURN(std::vector<std::string> children, env->GetChildren(store->dir_));
  SF_RETURN_IF_ERROR(store->RemoveTempFiles(children));
  if (options.hazard_in_place_write) {
    SF_RETURN_IF_ERROR(store->LoadFromIndexFile(children));
  } else {
    // The recovery rule (engine/env.h): the files a dead process published may still be only in
    // the page cache; make them and their directory entries durable before trusting them.
    std::vector<std::string> published;
    for (const std::string& name : children) {
      if (ParseFileName(name)) published.push_back(name);
    }
    SF_RETURN_IF_ERROR(MakeInheritedDurable(env, store->dir_, published));
    SF_RETURN_IF_ERROR(store->LoadFromFiles(children));
  }
  return store;
}

Status FileCheckpointStore::RemoveTempFiles(const std::vector<std::string>& children) {
  bool removed = false;
  for (const std::string& name : children) {
    if (!EndsWith(name, kTempSuffix)) continue;
    Status s = env_->RemoveFile(JoinPath(dir_, name));
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      return s.WithContext("removing leftover temp file of an interrupted commit");
    }
    removed = true;
  }
  return removed ? env_->SyncDir(dir_) : Status::Ok();
}

Status FileCheckpointStore::LoadFromFiles(const std::vector<std::string>& children) {
  for (const std::string& name : children) {
    auto named = ParseFileName(name);
    if (!named) continue;  // LOCK, index.jsonl, anything a person left here
    next_seq_ = std::max(next_seq_, named->first + 1);
    auto damaged = [&](const std::string& reason) {
      damaged_[name] = reason;
      damaged_ids_[named->second] = name;
    };
    auto content = env_->ReadFile(JoinPath(dir_, name));
    if (!content.ok()) {
      damaged(content.status().ToString());
      continue;
    }
    auto decoded = Decode(name, *content);
    if (!decoded.ok()) {
      damaged(decoded.status().message());
    } else if (entries_.count(decoded->seq) > 0 || seq_by_info_.count(decoded->entry.info) > 0) {
      damaged("duplicate seq or checkpoint id");
    } else {
      AddLocked(Entry{decoded->entry, decoded->seq});
    }
  }
  return Status::Ok();
}

Status FileCheckpointStore::LoadFromIndexFile(const std::vector<std::string>& children) {
  for (const std::string& name : children) {
    if (auto named = ParseFileName(name)) next_seq_ = std::max(next_seq_, named->first + 1);
  }
  const std::string path = JoinPath(dir_, kIndexFileName);
  SF_ASSIGN_OR_RETURN(bool exists, env_->FileExists(path));
  std::string content;
  if (exists) {
    SF_ASSIGN_OR_RETURN(content, env_->ReadFile(path));
  }
  auto corrupted = [&](size_t line_no, const std::string& why) {
    return Status::Corruption(path + " line " + std::to_string(line_no) + ": " + why +
                              "; index corrupted (repair or remove the line to open the store)");
  };
  if (!content.empty() && content.back() != '\n') {
    return corrupted(0, "the last line is torn (no newline)");
  }
  size_t start = 0;
  for (size_t line_no = 1; start < content.size(); ++line_no) {
    const size_t end = content.find('\n', start);
    json line = json::parse(std::string_view(content).substr(start, end - start), nullptr, false);
    start = end + 1;
    if (line.is_discarded() || !line.is_object()) return corrupted(line_no, "not a JSON object");
    auto seq = line.find("seq"), session = line.find("session_id"), id = line.find("checkpoint_id");
    auto parent = line.find("parent_checkpoint_id"), file = line.find("file");
    if (seq == line.end() || !seq->is_number_unsigned() || session == line.end() ||
        !session->is_string() || id == line.end() || !id->is_string() || parent == line.end() ||
        !(parent->is_string() || parent->is_null()) || file == line.end() ||
        *file != FileNameFor(seq->get<uint64_t>(), id->get<std::string>())) {
      return corrupted(line_no, "missing or malformed fields");
    }
    Entry e;
    e.seq = seq->get<uint64_t>();
    e.entry.info = CheckpointInfo{session->get<std::string>(), id->get<std::string>()};
    if (parent->is_string()) e.entry.parent_checkpoint_id = parent->get<std::string>();
    // Upstream de-duplicates keeping the first position.
    if (seq_by_info_.count(e.entry.info) > 0 || entries_.count(e.seq) > 0) continue;
    next_seq_ = std::max(next_seq_, e.seq + 1);
    AddLocked(std::move(e));
  }
  SF_ASSIGN_OR_RETURN(index_file_, env_->NewAppendableFile(path));
  return Status::Ok();
}

void FileCheckpointStore::AddLocked(Entry entry) {
  seq_by_info_[entry.entry.info] = entry.seq;
  const uint64_t seq = entry.seq;
  entries_.emplace(seq, std::move(entry));
}

Result<CheckpointInfo> FileCheckpointStore::Commit(const std::string& session_id,
                                                   std::string_view bytes,
                                                   const std::optional<CheckpointInfo>& parent) {
  SF_ASSIGN_OR_RETURN(std::string document, ValidateCommit(session_id, bytes, parent));
  std::lock_guard<std::mutex> lock(mu_);
  // A failed commit still consumes its seq, so a file it may have left can never collide.
  const uint64_t seq = next_seq_++;
  Entry e;
  e.seq = seq;
  e.entry.info = CheckpointInfo{session_id, StoreCheckpointId(options_.seed, session_id, seq)};
  if (parent) e.entry.parent_checkpoint_id = parent->checkpoint_id;
  const std::string name = FileNameFor(seq, e.entry.info.checkpoint_id);
  const std::string path = JoinPath(dir_, name);
  const std::string content = Encode(seq, e.entry, document);

  Status s;
  if (options_.hazard_in_place_write) {
    // HAZARD: the index line is flushed before the checkpoint bytes exist; nothing is fsynced.
    if (index_file_ == nullptr) {  // a failed prune could not reopen it
      SF_ASSIGN_OR_RETURN(index_file_, env_->NewAppendableFile(JoinPath(dir_, kIndexFileName)));
    }
    s = index_file_->Append(IndexLine(seq, e.entry));
    if (s.ok()) {
      auto file = env_->NewWritableFile(path);
      s = file.ok() ? (*file)->Append(content) : file.status();
      if (s.ok()) s = (*file)->Close();
    }
  } else {
    s = WriteFileAtomically(env_, dir_, name, content);
  }
  if (!s.ok()) {
    // Best effort: leave no file behind that a reopen would list. Failures here are moot: a
    // leftover temp is removed on open and a complete renamed file is a valid checkpoint.
    (void)env_->RemoveFile(path + std::string(kTempSuffix));
    if (!options_.hazard_in_place_write) {
      (void)env_->RemoveFile(path);
      (void)env_->SyncDir(dir_);
    }
    return s.WithContext("committing checkpoint " + e.entry.info.ToString() + " to " + path);
  }
  CheckpointInfo info = e.entry.info;
  AddLocked(std::move(e));
  return info;
}

Result<std::string> FileCheckpointStore::ReadDocumentLocked(const Entry& entry) {
  const std::string name = FileNameFor(entry.seq, entry.entry.info.checkpoint_id);
  auto content = env_->ReadFile(JoinPath(dir_, name));
  if (!content.ok()) {
    if (content.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("checkpoint " + entry.entry.info.ToString() +
                              " is listed but its file " + name + " is missing");
    }
    return content.status();
  }
  SF_ASSIGN_OR_RETURN(Decoded decoded, Decode(name, *content));
  if (decoded.entry != entry.entry) {
    return Status::Corruption(name + ": file content disagrees with the index entry");
  }
  return std::move(decoded.document);
}

Result<std::string> FileCheckpointStore::Retrieve(const CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = seq_by_info_.find(info);
  if (it == seq_by_info_.end()) {
    auto damaged = damaged_ids_.find(info.checkpoint_id);
    if (damaged != damaged_ids_.end()) {
      return Status::Corruption("checkpoint " + info.ToString() + " is in damaged file " +
                                damaged->second + ": " + damaged_.at(damaged->second));
    }
    return Status::NotFound("no checkpoint " + info.ToString() + " in " + dir_);
  }
  SF_ASSIGN_OR_RETURN(std::string document, ReadDocumentLocked(entries_.at(it->second)));
  if (options_.hazard_prune_on_read) SF_RETURN_IF_ERROR(PruneLocked(info));
  return document;
}

Result<std::vector<StoreEntry>> FileCheckpointStore::Index(
    const std::string& session_id, const std::optional<CheckpointInfo>& with_parent) {
  std::lock_guard<std::mutex> lock(mu_);
  return FilterByParent(SessionIndexLocked(session_id), with_parent);
}

std::vector<StoreEntry> FileCheckpointStore::SessionIndexLocked(
    const std::string& session_id) const {
  std::vector<StoreEntry> index;
  for (const auto& [seq, e] : entries_) {
    if (e.entry.info.session_id == session_id) index.push_back(e.entry);
  }
  return index;
}

std::vector<std::string> FileCheckpointStore::damaged_files() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, reason] : damaged_) out.push_back(name + ": " + reason);
  return out;
}

Status FileCheckpointStore::OnRestorationCompleted(const CheckpointInfo& restored) {
  std::lock_guard<std::mutex> lock(mu_);
  return PruneLocked(restored);
}

Status FileCheckpointStore::RewriteIndexFileLocked(const std::vector<CheckpointInfo>& without) {
  std::string content;
  for (const auto& [seq, e] : entries_) {
    if (std::find(without.begin(), without.end(), e.entry.info) == without.end()) {
      content += IndexLine(seq, e.entry);
    }
  }
  index_file_.reset();
  Status written = WriteFileAtomically(env_, dir_, kIndexFileName, content);
  // Reopen whatever index is now in place, so later commits append to the right file.
  auto reopened = env_->NewAppendableFile(JoinPath(dir_, kIndexFileName));
  if (reopened.ok()) index_file_ = std::move(reopened).value();
  SF_RETURN_IF_ERROR(written);
  return reopened.status();
}

Status FileCheckpointStore::PruneLocked(const CheckpointInfo& restored) {
  const std::vector<StoreEntry> index = SessionIndexLocked(restored.session_id);
  const std::vector<CheckpointInfo> victims = ObsoleteBeforeRestored(index, restored);
  if (victims.empty()) return Status::Ok();
  // In hazard mode the index is the source of truth: rewrite it first (as Foundry does), so a
  // crash leaves at worst unlisted files, never listed-but-missing ones.
  if (options_.hazard_in_place_write) SF_RETURN_IF_ERROR(RewriteIndexFileLocked(victims));
  Status s = PruneObsolete(
      index, restored,
      [&](const CheckpointInfo& victim) {
        auto it = seq_by_info_.find(victim);
        if (it == seq_by_info_.end()) return Status::NotFound(victim.ToString());
        const uint64_t seq = it->second;
        Status removed = env_->RemoveFile(JoinPath(dir_, FileNameFor(seq, victim.checkpoint_id)));
        if (!removed.ok() && removed.code() != StatusCode::kNotFound) return removed;
        seq_by_info_.erase(it);
        entries_.erase(seq);
        return Status::Ok();
      },
      options_.probe);
  SF_RETURN_IF_ERROR(s);
  return env_->SyncDir(dir_);
}

}  // namespace stepfault
