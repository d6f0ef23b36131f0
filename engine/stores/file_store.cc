// FileCheckpointStore: envelope encoding and verification, the two write paths, and recovery.
#include "engine/stores/file_store.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"
#include "engine/store_base.h"
#include "engine/store_prune.h"
#include "engine/stores/committed_crc.h"

namespace stepfault {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "stepfault.checkpoint-file";
constexpr size_t kIdLength = 32;

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

json HeaderWithoutChecksum(uint64_t seq, const StoreEntry& entry, uint64_t payload_bytes,
                           uint32_t payload_crc) {
  return json{
      {"format", kFormat},
      {"version", 2},
      {"seq", seq},
      {"session_id", entry.info.session_id},
      {"checkpoint_id", entry.info.checkpoint_id},
      {"parent_checkpoint_id",
       entry.parent_checkpoint_id ? json(*entry.parent_checkpoint_id) : json(nullptr)},
      {"checkpoint_bytes", payload_bytes},
      {"checkpoint_crc32c", Crc32cTagOf(payload_crc)},
  };
}

// Version 2's header line ("\n" included) for a payload given as parts; the file is that line
// and then the parts, written by one gathered write (no staging copy of the payload). The
// payload's CRC comes from its own seal when it is a framed checkpoint (committed_crc.h): no
// second pass over the bytes.
std::string HeaderLine(uint64_t seq, const StoreEntry& entry,
                       std::span<const std::string_view> payload, uint64_t* payload_bytes,
                       uint32_t* payload_crc) {
  *payload_bytes = 0;
  for (std::string_view p : payload) *payload_bytes += p.size();
  *payload_crc = Crc32cOfCommittedParts(payload);
  json header = HeaderWithoutChecksum(seq, entry, *payload_bytes, *payload_crc);
  header["checksum"] = Crc32cTag(header.dump());
  return header.dump() + "\n";
}

const json* Field(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

// The fields versions 1 and 2 share; "" when they hold, else what is wrong.
std::string CheckCommonFields(const json& envelope, int version) {
  const json* format = Field(envelope, "format");
  const json* seq = Field(envelope, "seq");
  const json* session = Field(envelope, "session_id");
  const json* id = Field(envelope, "checkpoint_id");
  const json* parent = Field(envelope, "parent_checkpoint_id");
  const json* checksum = Field(envelope, "checksum");
  if (!format || *format != kFormat) return "format is not " + std::string(kFormat);
  const json* v = Field(envelope, "version");
  if (!v || *v != version) return "unsupported version";
  if (!seq || !seq->is_number_unsigned()) return "seq missing or not an unsigned integer";
  if (!session || !session->is_string() || session->get<std::string>().empty()) {
    return "session_id missing or empty";
  }
  if (!id || !id->is_string()) return "checkpoint_id missing";
  if (!parent || !(parent->is_string() || parent->is_null())) {
    return "parent_checkpoint_id must be a string or null";
  }
  if (!checksum || !checksum->is_string()) return "checksum missing";
  json unsealed = envelope;
  unsealed.erase("checksum");
  const std::string actual = Crc32cTag(unsealed.dump());
  if (actual != checksum->get<std::string>()) {
    return "checksum mismatch (stored " + checksum->get<std::string>() + ", computed " + actual +
           ")";
  }
  return "";
}

void FillEntry(const json& envelope, CheckpointFileRecord* out) {
  out->seq = envelope["seq"].get<uint64_t>();
  out->entry.info = CheckpointInfo{envelope["session_id"].get<std::string>(),
                                   envelope["checkpoint_id"].get<std::string>()};
  const json& parent = envelope["parent_checkpoint_id"];
  if (parent.is_string()) out->entry.parent_checkpoint_id = parent.get<std::string>();
}

// Version 1: the whole file is one JSON envelope with the document inside.
Result<CheckpointFileRecord> DecodeVersion1(std::string_view content) {
  json envelope = json::parse(content, nullptr, /*allow_exceptions=*/false);
  if (envelope.is_discarded() || !envelope.is_object()) {
    return Status::Corruption("not a JSON object (torn?)");
  }
  if (std::string why = CheckCommonFields(envelope, 1); !why.empty()) {
    return Status::Corruption(why);
  }
  if (!Field(envelope, "checkpoint")) return Status::Corruption("checkpoint document missing");
  if (envelope.size() != 8) return Status::Corruption("unexpected fields in the envelope");
  CheckpointFileRecord out;
  FillEntry(envelope, &out);
  out.checkpoint = envelope["checkpoint"].dump();
  out.checkpoint_crc32c = Crc32c(out.checkpoint);
  return out;
}

Result<CheckpointFileRecord> DecodeVersion2(std::string_view content) {
  const size_t newline = content.find('\n');
  if (newline == std::string_view::npos) return Status::Corruption("header line torn (no newline)");
  json header = json::parse(content.substr(0, newline), nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) {
    return Status::Corruption("header line is not a JSON object (torn?)");
  }
  if (std::string why = CheckCommonFields(header, 2); !why.empty()) return Status::Corruption(why);
  const json* length = Field(header, "checkpoint_bytes");
  const json* crc = Field(header, "checkpoint_crc32c");
  if (!length || !length->is_number_unsigned() || !crc || !crc->is_string()) {
    return Status::Corruption("checkpoint_bytes or checkpoint_crc32c missing");
  }
  if (header.size() != 9) return Status::Corruption("unexpected fields in the header");
  const std::string_view payload = content.substr(newline + 1);
  if (payload.size() != length->get<uint64_t>()) {
    return Status::Corruption("holds " + std::to_string(payload.size()) +
                              " checkpoint bytes, its header says " +
                              std::to_string(length->get<uint64_t>()) + " (torn write?)");
  }
  CheckpointFileRecord out;
  out.checkpoint_crc32c = Crc32c(payload);
  if (Crc32cTagOf(out.checkpoint_crc32c) != crc->get<std::string>()) {
    return Status::Corruption("checkpoint bytes checksum mismatch (stored " +
                              crc->get<std::string>() + ", computed " +
                              Crc32cTagOf(out.checkpoint_crc32c) + ")");
  }
  FillEntry(header, &out);
  out.checkpoint = std::string(payload);
  return out;
}

// Verifies structure, checksum and agreement with the file name.
Result<CheckpointFileRecord> Decode(const std::string& file_name, std::string_view content) {
  auto decoded = DecodeCheckpointFile(content);
  if (!decoded.ok()) return Status::Corruption(file_name + ": " + decoded.status().message());
  auto named = ParseFileName(file_name);
  if (!named || named->first != decoded->seq ||
      named->second != decoded->entry.info.checkpoint_id) {
    return Status::Corruption(file_name +
                              ": seq/checkpoint_id inside the file disagree with its name");
  }
  return decoded;
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

}  // namespace

Result<CheckpointFileRecord> DecodeCheckpointFile(std::string_view content) {
  if (content.empty()) return Status::Corruption("file is empty (a write that never completed)");
  // Version 2 headers are canonical JSON, so their first key is always "checkpoint_bytes";
  // version 1 files are one indented JSON document.
  if (!content.starts_with("{\"checkpoint_bytes\":")) return DecodeVersion1(content);
  return DecodeVersion2(content);
}

json CheckpointFileAsJson(std::string_view content) {
  auto record = DecodeCheckpointFile(content);
  if (!record.ok()) return json(json::value_t::discarded);
  json checkpoint = nullptr;
  if (LooksLikeFramedCheckpoint(record->checkpoint)) {
    auto decoded = DecodeCheckpoint(record->checkpoint);
    if (decoded.ok()) {
      // Version 1 is JSON text: a framed blob that is not UTF-8 has no version-1 form (the dump
      // throws), so such a checkpoint shows as null, like an undecodable one.
      try {
        checkpoint = json::parse(EncodeCheckpointJson(*decoded));
      } catch (const json::exception&) {
        checkpoint = nullptr;
      }
    }
  } else {
    checkpoint = json::parse(record->checkpoint, nullptr, /*allow_exceptions=*/false);
    if (checkpoint.is_discarded()) checkpoint = nullptr;
  }
  json envelope = {
      {"format", kFormat},
      {"version", 1},
      {"seq", record->seq},
      {"session_id", record->entry.info.session_id},
      {"checkpoint_id", record->entry.info.checkpoint_id},
      {"parent_checkpoint_id", record->entry.parent_checkpoint_id
                                   ? json(*record->entry.parent_checkpoint_id)
                                   : json(nullptr)},
      {"checkpoint", std::move(checkpoint)},
  };
  envelope["checksum"] = Crc32cTag(envelope.dump());
  return envelope;
}

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
  SF_ASSIGN_OR_RETURN(CheckpointFileRecord d, Decode(file_name, content));
  return DecodedFile{d.seq, std::move(d.entry), std::move(d.checkpoint)};
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
      if (ParseFileName(name) || ParseRecordFileName(name)) published.push_back(name);
    }
    SF_RETURN_IF_ERROR(MakeInheritedDurable(env, store->dir_, published));
    SF_RETURN_IF_ERROR(store->LoadFromFiles(children));
  }
  return store;
}

Status FileCheckpointStore::RemoveTempFiles(const std::vector<std::string>& children) {
  bool removed = false;
  for (const std::string& name : children) {
    if (!name.ends_with(kTempSuffix)) continue;
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
      AddLocked(Entry{decoded->entry, decoded->seq, content->size(), decoded->checkpoint_crc32c});
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

Result<CheckpointInfo> FileCheckpointStore::CommitValidated(
    const std::string& session_id, std::span<const std::string_view> document,
    const std::optional<CheckpointInfo>& parent) {
  std::lock_guard<std::mutex> lock(mu_);
  // A failed commit still consumes its seq, so a file it may have left can never collide.
  const uint64_t seq = next_seq_++;
  Entry e;
  e.seq = seq;
  e.entry.info = CheckpointInfo{session_id, StoreCheckpointId(options_.seed, session_id, seq)};
  if (parent) e.entry.parent_checkpoint_id = parent->checkpoint_id;
  const std::string name = FileNameFor(seq, e.entry.info.checkpoint_id);
  const std::string path = JoinPath(dir_, name);
  uint64_t payload_bytes = 0;
  const std::string header =
      HeaderLine(seq, e.entry, document, &payload_bytes, &e.checkpoint_crc32c);
  e.file_bytes = header.size() + payload_bytes;
  std::vector<std::string_view> content;
  content.reserve(document.size() + 1);
  content.push_back(header);
  content.insert(content.end(), document.begin(), document.end());

  Status s;
  if (options_.hazard_in_place_write) {
    // HAZARD: the index line is flushed before the checkpoint bytes exist; nothing is fsynced.
    if (index_file_ == nullptr) {  // a failed prune could not reopen it
      SF_ASSIGN_OR_RETURN(index_file_, env_->NewAppendableFile(JoinPath(dir_, kIndexFileName)));
    }
    s = index_file_->Append(IndexLine(seq, e.entry));
    if (s.ok()) {
      auto file = env_->NewWritableFile(path);
      s = file.ok() ? (*file)->AppendParts(content) : file.status();
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
  // What Open or Commit verified is cached; a file that changed since is damaged.
  if (entry.file_bytes != 0 && content->size() != entry.file_bytes) {
    return Status::Corruption(name + ": file is " + std::to_string(content->size()) +
                              " bytes, it was " + std::to_string(entry.file_bytes) +
                              " when verified (changed or torn since)");
  }
  SF_ASSIGN_OR_RETURN(CheckpointFileRecord decoded, Decode(name, *content));
  if (decoded.entry != entry.entry ||
      (entry.file_bytes != 0 && decoded.checkpoint_crc32c != entry.checkpoint_crc32c)) {
    return Status::Corruption(name + ": file content disagrees with the index entry");
  }
  return std::move(decoded.checkpoint);
}

std::string FileCheckpointStore::RecordFileName(const std::string& key) {
  return "record-" + key + ".rec";
}

std::optional<std::string> FileCheckpointStore::ParseRecordFileName(std::string_view name) {
  constexpr std::string_view kPrefix = "record-", kExt = ".rec";
  if (!name.starts_with(kPrefix) || !name.ends_with(kExt)) return std::nullopt;
  name = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kExt.size());
  if (!IsValidRecordKey(name)) return std::nullopt;
  return std::string(name);
}

Status FileCheckpointStore::PutRecord(const std::string& key, std::string_view bytes) {
  if (!SupportsRecords()) return CheckpointStore::PutRecord(key, bytes);
  if (!IsValidRecordKey(key)) return Status::InvalidArgument("invalid record key '" + key + "'");
  std::lock_guard<std::mutex> lock(mu_);
  // The checkpoints' own write path: temp, fsync, rename, directory fsync.
  const std::string name = RecordFileName(key);
  Status s = WriteFileAtomically(env_, dir_, name, bytes);
  if (!s.ok()) {
    (void)env_->RemoveFile(JoinPath(dir_, name) + std::string(kTempSuffix));
    return s.WithContext("writing record " + key + " to " + JoinPath(dir_, name));
  }
  return Status::Ok();
}

Result<std::string> FileCheckpointStore::GetRecord(const std::string& key) {
  if (!SupportsRecords()) return CheckpointStore::GetRecord(key);
  if (!IsValidRecordKey(key)) return Status::NotFound("invalid record key '" + key + "'");
  std::lock_guard<std::mutex> lock(mu_);
  const std::string path = JoinPath(dir_, RecordFileName(key));
  auto content = env_->ReadFile(path);
  if (!content.ok() && content.status().code() == StatusCode::kNotFound) {
    return Status::NotFound("no record " + key + " in " + dir_ + " (" + path + " is missing)");
  }
  return content;
}

Result<std::string> FileCheckpointStore::Retrieve(const CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  SF_ASSIGN_OR_RETURN(std::string document, RetrieveLocked(info));
  if (options_.hazard_prune_on_read) SF_RETURN_IF_ERROR(PruneLocked(info));
  return document;
}

Result<std::string> FileCheckpointStore::RetrieveLocked(const CheckpointInfo& info) {
  auto it = seq_by_info_.find(info);
  if (it == seq_by_info_.end()) {
    auto damaged = damaged_ids_.find(info.checkpoint_id);
    if (damaged != damaged_ids_.end()) {
      return Status::Corruption("checkpoint " + info.ToString() + " is in damaged file " +
                                damaged->second + ": " + damaged_.at(damaged->second));
    }
    return Status::NotFound("no checkpoint " + info.ToString() + " in " + dir_);
  }
  return ReadDocumentLocked(entries_.at(it->second));
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
  if (!reopened.ok()) {
    SF_RETURN_IF_ERROR(written);
    return reopened.status();
  }
  index_file_ = std::move(reopened).value();
  return written;
}

Status FileCheckpointStore::PruneLocked(const CheckpointInfo& restored) {
  const std::vector<StoreEntry> index = SessionIndexLocked(restored.session_id);
  // Incremental checkpoints: a base a kept delta needs is never a victim.
  const DeltaBaseOf base_of =
      DeltaBaseFromBytes([this](const CheckpointInfo& info) { return RetrieveLocked(info); });
  const std::vector<CheckpointInfo> victims = PrunableBeforeRestored(index, restored, base_of);
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
      options_.probe, base_of);
  SF_RETURN_IF_ERROR(s);
  return env_->SyncDir(dir_);
}

}  // namespace stepfault
