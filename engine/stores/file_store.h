// FileCheckpointStore: one directory, one file per checkpoint.
//
// Strict mode (default) fixes the upstream FileSystemJsonCheckpointStore hazard
// (docs/engine-semantics.md §4.3): a checkpoint is published by WriteFileAtomically (temp, one
// gathered write of the header line and the checkpoint's parts, fsync, rename, directory fsync) as
// `<seq, 10 digits>-<checkpoint id>.json`, holding (version 2) one canonical JSON header line and
// then the committed bytes unchanged:
//   {"checkpoint_bytes":L,"checkpoint_crc32c":"crc32c:...","checkpoint_id":...,"checksum":...,
//    "format":"stepfault.checkpoint-file","parent_checkpoint_id":...|null,"seq":N,
//    "session_id":...,"version":2}\n<L checkpoint bytes>
// whose checksum is Crc32cTag of the header's canonical dump without "checksum", and whose
// checkpoint_crc32c seals the L bytes (nothing is re-serialised; for a framed checkpoint Commit
// takes that CRC from the checkpoint's own seal, engine/stores/committed_crc.h, so a commit makes
// no pass over the bytes but the write; bytes that disagree with their seal give a file that reads
// as damaged, as the codec would reject them). Version-1 files
// (one indented JSON envelope with the document under "checkpoint") are still read. That file is
// the whole commit: there is no second index, order and parents are recovered from the files, and
// the session id never reaches a file name. Open removes leftover *.tmp files, verifies every
// checkpoint file (header seal and payload CRC, no parse of the payload), caches what it verified
// (seq, entry, file size, payload CRC) and reports a damaged one (damaged_files(), kCorruption
// from Retrieve) instead of loading it; Retrieve re-reads the file and checks it against that
// cache. DecodeCheckpointFile reads this on-disk format for anyone else (oracles, tools).
//
// hazard_in_place_write brings the upstream behaviour back for the harness to catch: an index.jsonl
// line is appended (no fsync) before the checkpoint file is written in place (no temp, no fsync, no
// rename); Open trusts index.jsonl and fails with kCorruption "index corrupted" on any bad line.
// hazard_prune_on_read (#7796) prunes a checkpoint's ancestry inside Retrieve.
//
// Records (checkpoint_store.h, the topology records of engine/topology_record.h) are files
// `record-<key>.rec` holding the record's bytes, published by the same WriteFileAtomically as a
// checkpoint; Open makes them durable with the checkpoint files (the recovery rule) and pruning
// never deletes one. The in-place-write hazard store keeps no records (SupportsRecords() false):
// its checkpoints carry their topology inline, as upstream's do.
// The directory is owned exclusively through a lock on <dir>/LOCK; a second store gets kBusy.
// All I/O goes through the Env. Thread-safety: every method is safe for concurrent calls.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/env.h"
#include "engine/probe.h"
#include "engine/store_base.h"

namespace stepfault {

// One checkpoint file, verified: its seq, entry, the committed bytes and their CRC32C.
struct CheckpointFileRecord {
  uint64_t seq = 0;
  StoreEntry entry;
  std::string checkpoint;
  uint32_t checkpoint_crc32c = 0;
};
// Decodes a checkpoint file of either version (the name is not checked): kCorruption naming what
// is wrong when it is torn or damaged.
Result<CheckpointFileRecord> DecodeCheckpointFile(std::string_view content);
// The file as a version-1 envelope (JSON, its "checkpoint" the all-JSON checkpoint document, or
// null when those bytes are not a decodable checkpoint or hold strings that are not UTF-8; sealed
// like version 1), for readers that inspect JSON; discarded when the file does not verify.
nlohmann::json CheckpointFileAsJson(std::string_view content);

struct FileStoreOptions {
  uint64_t seed = 0;
  // HAZARD (#7796): Retrieve prunes the retrieved checkpoint's ancestry before returning.
  bool hazard_prune_on_read = false;
  // HAZARD (upstream file store): index line first, checkpoint file written in place, no fsync.
  bool hazard_in_place_write = false;
  // Receives the pruning fault points (store.prune.before, store.prune.delete); null: none.
  Probe* probe = nullptr;
};

class FileCheckpointStore final : public PartsWritingCheckpointStore, public RestorationObserver {
 public:
  // Opens (creating if missing) the store in `dir`. kBusy when another store holds the directory;
  // in hazard_in_place_write mode kCorruption when index.jsonl has a bad line.
  // REQUIRES: env outlives the store.
  static Result<std::unique_ptr<FileCheckpointStore>> Open(Env* env, std::string dir,
                                                           FileStoreOptions options = {});

  // Commit and CommitParts: PartsWritingCheckpointStore (engine/store_base.h). A framed
  // checkpoint's header line and parts go out in one gathered write (Env AppendParts): the same
  // file, and the same operations, as Commit of the joined bytes, without joining them.
  Result<std::string> Retrieve(const CheckpointInfo& info) override;
  Result<std::vector<StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<CheckpointInfo>& with_parent = std::nullopt) override;
  Status OnRestorationCompleted(const CheckpointInfo& restored) override;
  bool SupportsRecords() const override { return !options_.hazard_in_place_write; }
  Status PutRecord(const std::string& key, std::string_view bytes) override;
  Result<std::string> GetRecord(const std::string& key) override;
  // "record-<key>.rec"; ParseRecordFileName is its inverse (nullopt for any other name).
  static std::string RecordFileName(const std::string& key);
  static std::optional<std::string> ParseRecordFileName(std::string_view name);

  // "<file name>: <reason>" for every checkpoint file Open found damaged and did not load.
  std::vector<std::string> damaged_files() const;
  const std::string& dir() const { return dir_; }

  // The file name of the checkpoint with store sequence `seq`.
  static std::string FileNameFor(uint64_t seq, const std::string& checkpoint_id);

  // THE decoder of the on-disk format, exported so that oracles read durable bytes exactly as the
  // store would load them instead of parsing the format by hand a second time.
  struct DecodedFile {
    uint64_t seq = 0;
    StoreEntry entry;
    std::string document;  // the committed checkpoint bytes (DecodeCheckpoint reads either version)
  };
  // (seq, checkpoint id) of a checkpoint file name "<seq, 10+ digits>-<32 hex>.json"; nullopt for
  // any other name (LOCK, temps, index.jsonl, a person's notes).
  static std::optional<std::pair<uint64_t, std::string>> ParseCheckpointFileName(
      std::string_view name);
  // Verifies a checkpoint file's structure, checksum and agreement with its name, as Open does:
  // kCorruption naming the problem.
  static Result<DecodedFile> DecodeFile(const std::string& file_name, std::string_view content);
  static constexpr const char* kIndexFileName = "index.jsonl";  // hazard mode only

 private:
  struct Entry {
    StoreEntry entry;
    uint64_t seq = 0;
    uint64_t file_bytes = 0;  // as verified by Open or written by Commit; 0: not known (hazard)
    uint32_t checkpoint_crc32c = 0;
  };

  FileCheckpointStore(Env* env, std::string dir, FileStoreOptions options,
                      std::unique_ptr<FileLock> lock)
      : env_(env), dir_(std::move(dir)), options_(options), lock_(std::move(lock)) {}

  // Commit of a validated document (the bytes the store keeps), given as parts.
  Result<CheckpointInfo> CommitValidated(const std::string& session_id,
                                         std::span<const std::string_view> document,
                                         const std::optional<CheckpointInfo>& parent) override;
  Status RemoveTempFiles(const std::vector<std::string>& children);
  Status LoadFromFiles(const std::vector<std::string>& children);
  Status LoadFromIndexFile(const std::vector<std::string>& children);
  void AddLocked(Entry entry);
  Result<std::string> ReadDocumentLocked(const Entry& entry);
  std::vector<StoreEntry> SessionIndexLocked(const std::string& session_id) const;
  Status RewriteIndexFileLocked(const std::vector<CheckpointInfo>& without);
  Result<std::string> RetrieveLocked(const CheckpointInfo& info);
  Status PruneLocked(const CheckpointInfo& restored);

  Env* const env_;
  const std::string dir_;
  const FileStoreOptions options_;
  const std::unique_ptr<FileLock> lock_;

  mutable std::mutex mu_;
  uint64_t next_seq_ = 1;
  std::map<uint64_t, Entry> entries_;  // by seq: commit order
  std::map<CheckpointInfo, uint64_t> seq_by_info_;
  std::map<std::string, std::string> damaged_;      // file name -> reason
  std::map<std::string, std::string> damaged_ids_;  // checkpoint id -> file name
  std::unique_ptr<WritableFile> index_file_;        // hazard_in_place_write only
};

}  // namespace stepfault
