// FileCheckpointStore: one directory, one human-readable JSON file per checkpoint.
//
// Strict mode (default) fixes the upstream FileSystemJsonCheckpointStore hazard
// (docs/engine-semantics.md §4.3): a checkpoint is published by WriteFileAtomically (temp, fsync,
// rename, directory fsync) as
// `<seq, 10 digits>-<checkpoint id>.json`, holding the envelope
//   {"format":"stepfault.checkpoint-file","version":1,"seq":N,"session_id":...,
//    "checkpoint_id":...,"parent_checkpoint_id":...|null,"checkpoint":<document>,
//    "checksum":"crc32c:..."}
// whose checksum is Crc32cTag of the canonical dump of the envelope without "checksum". That file
// is the whole commit: there is no second index, order and parents are recovered from the files,
// and the session id never reaches a file name. Open removes leftover *.tmp files, verifies every
// checkpoint file and reports a damaged one (damaged_files(), kCorruption from Retrieve) instead of
// loading it.
//
// hazard_in_place_write brings the upstream behaviour back for the harness to catch: an index.jsonl
// line is appended (no fsync) before the checkpoint file is written in place (no temp, no fsync, no
// rename); Open trusts index.jsonl and fails with kCorruption "index corrupted" on any bad line.
// hazard_prune_on_read (#7796) prunes a checkpoint's ancestry inside Retrieve.
//
// The directory is owned exclusively through a lock on <dir>/LOCK; a second store gets kBusy.
// All I/O goes through the Env. Thread-safety: every method is safe for concurrent calls.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/env.h"
#include "engine/probe.h"

namespace stepfault {

struct FileStoreOptions {
  uint64_t seed = 0;
  // HAZARD (#7796): Retrieve prunes the retrieved checkpoint's ancestry before returning.
  bool hazard_prune_on_read = false;
  // HAZARD (upstream file store): index line first, checkpoint file written in place, no fsync.
  bool hazard_in_place_write = false;
  // Receives the pruning fault points (store.prune.before, store.prune.delete); null: none.
  Probe* probe = nullptr;
};

class FileCheckpointStore final : public CheckpointStore, public RestorationObserver {
 public:
  // Opens (creating if missing) the store in `dir`. kBusy when another store holds the directory;
  // in hazard_in_place_write mode kCorruption when index.jsonl has a bad line.
  // REQUIRES: env outlives the store.
  static Result<std::unique_ptr<FileCheckpointStore>> Open(Env* env, std::string dir,
                                                           FileStoreOptions options = {});

  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override;
  Result<std::string> Retrieve(const CheckpointInfo& info) override;
  Result<std::vector<StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<CheckpointInfo>& with_parent = std::nullopt) override;
  Status OnRestorationCompleted(const CheckpointInfo& restored) override;

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
    std::string document;  // canonical dump of the envelope's "checkpoint"
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
  };

  FileCheckpointStore(Env* env, std::string dir, FileStoreOptions options,
                      std::unique_ptr<FileLock> lock)
      : env_(env), dir_(std::move(dir)), options_(options), lock_(std::move(lock)) {}

  Status RemoveTempFiles(const std::vector<std::string>& children);
  Status LoadFromFiles(const std::vector<std::string>& children);
  Status LoadFromIndexFile(const std::vector<std::string>& children);
  void AddLocked(Entry entry);
  Result<std::string> ReadDocumentLocked(const Entry& entry);
  std::vector<StoreEntry> SessionIndexLocked(const std::string& session_id) const;
  Status RewriteIndexFileLocked(const std::vector<CheckpointInfo>& without);
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
