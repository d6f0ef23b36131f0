// CheckpointStore: the durable-store contract (modelled on MAF's ICheckpointStore<JsonElement> and
// ICheckpointRestorationObserver, docs/engine-semantics.md §4.2, §4.4).
//
// A store keeps opaque checkpoint documents per session (canonical JSON bytes, or a framed
// checkpoint kept byte for byte, see checkpoint.h):
//  - Commit(session, bytes, parent) stores the bytes and returns a CheckpointInfo whose id the
//  store
//    chose; when Commit returns ok the checkpoint is durable (for a durable store).
//  - Retrieve returns exactly the committed bytes, or kNotFound / kCorruption; it never deletes.
//  - Index lists a session's entries in commit order, optionally only the children of `with_parent`
//    (legacy entries without parent metadata are always included under a parent filter).
//  - Latest is the last entry of Index.
//  - CommitParts(session, parts, parent) is Commit of the parts' concatenation (the manager hands
//    a framed checkpoint over as its parts, EncodedCheckpoint in checkpoint.h). The default joins
//    them and calls Commit; a store that can write parts as they are (the file store's gathered
//    write) overrides it to spare that copy, and must store exactly the same bytes.
//  - Records (SupportsRecords, PutRecord, GetRecord): immutable content-addressed blobs beside the
//    checkpoints, one per key, shared by every session (the topology records of
//    engine/topology_record.h). PutRecord is durable when it returns ok (for a durable store) and
//    replaces a record of the same key; GetRecord returns exactly those bytes, or kNotFound /
//    kCorruption. No pruning ever deletes a record. A store that does not support them (the
//    default: SQLite, the in-place-write hazard store) keeps every checkpoint self-contained, and
//    PutRecord is kFailedPrecondition. A key is 1..64 of [a-z0-9-] (IsValidRecordKey).
// A store that prunes implements RestorationObserver: the engine calls it only after a restore
// fully succeeded, and never lets its failure fail that restore.
// Thread-safety: every store here is safe for concurrent calls.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace stepfault {

struct CheckpointInfo {
  std::string session_id;
  std::string checkpoint_id;

  friend auto operator<=>(const CheckpointInfo&, const CheckpointInfo&) = default;
  std::string ToString() const { return session_id + "/" + checkpoint_id; }
};

struct StoreEntry {
  CheckpointInfo info;
  std::optional<std::string> parent_checkpoint_id;  // within the same session
  bool has_parent_metadata = true;  // false for legacy entries written before parents existed

  friend bool operator==(const StoreEntry&, const StoreEntry&) = default;
};

class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;

  virtual Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                        const std::optional<CheckpointInfo>& parent) = 0;
  virtual Result<CheckpointInfo> CommitParts(const std::string& session_id,
                                             std::span<const std::string_view> parts,
                                             const std::optional<CheckpointInfo>& parent);
  virtual Result<std::string> Retrieve(const CheckpointInfo& info) = 0;
  virtual Result<std::vector<StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<CheckpointInfo>& with_parent = std::nullopt) = 0;

  Result<std::optional<CheckpointInfo>> Latest(const std::string& session_id);

  virtual bool SupportsRecords() const { return false; }
  virtual Status PutRecord(const std::string& key, std::string_view bytes);
  virtual Result<std::string> GetRecord(const std::string& key);
};

// True when `key` may name a record: 1..64 characters of [a-z0-9-] (safe in a file name).
bool IsValidRecordKey(std::string_view key);

class RestorationObserver {
 public:
  virtual ~RestorationObserver() = default;
  // Called after a restore of `restored` fully succeeded. A failure is reported by the caller and
  // never undoes the restore; entries may have been deleted before the failure.
  virtual Status OnRestorationCompleted(const CheckpointInfo& restored) = 0;
};

// A store that forwards every call to an inner store, restoration notices included (to the inner
// store when it is a RestorationObserver, else they are a no-op). A wrapper derives from it and
// overrides only what it changes: a test seam that edits what it is given, a benchmark store that
// keeps alive what its inner store runs on. CommitParts is not forwarded: the default joins the
// parts and calls Commit, so a wrapper that overrides Commit sees every commit; a wrapper that
// changes nothing on commit may forward it with ForwardCommitParts. Thread-safety: that of the
// inner store.
class ForwardingCheckpointStore : public CheckpointStore, public RestorationObserver {
 public:
  explicit ForwardingCheckpointStore(std::unique_ptr<CheckpointStore> inner)
      : inner_(std::move(inner)) {}

  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override {
    return inner_->Commit(session_id, bytes, parent);
  }
  Result<std::string> Retrieve(const CheckpointInfo& info) override {
    return inner_->Retrieve(info);
  }
  Result<std::vector<StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<CheckpointInfo>& with_parent = std::nullopt) override {
    return inner_->Index(session_id, with_parent);
  }
  bool SupportsRecords() const override { return inner_->SupportsRecords(); }
  Status PutRecord(const std::string& key, std::string_view bytes) override {
    return inner_->PutRecord(key, bytes);
  }
  Result<std::string> GetRecord(const std::string& key) override { return inner_->GetRecord(key); }
  Status OnRestorationCompleted(const CheckpointInfo& restored) override {
    auto* observer = dynamic_cast<RestorationObserver*>(inner_.get());
    return observer != nullptr ? observer->OnRestorationCompleted(restored) : Status::Ok();
  }

 protected:
  CheckpointStore& inner() { return *inner_; }
  Result<CheckpointInfo> ForwardCommitParts(const std::string& session_id,
                                            std::span<const std::string_view> parts,
                                            const std::optional<CheckpointInfo>& parent) {
    return inner_->CommitParts(session_id, parts, parent);
  }
  // Destroys the inner store now (a derived class whose members the inner store uses calls it
  // from its destructor, which runs before this base's).
  void DestroyInner() { inner_.reset(); }

 private:
  std::unique_ptr<CheckpointStore> inner_;
};

// The pruning rule of the Foundry store (docs/engine-semantics.md §4.4), over a session's index in
// commit order: the entries strictly before `restored` that are legacy (no parent metadata),
// parentless roots, or ancestors of `restored`. Sibling branches, `restored` and everything after
// it are kept. Returns nothing when `restored` is absent or first.
std::vector<CheckpointInfo> ObsoleteBeforeRestored(const std::vector<StoreEntry>& session_index,
                                                   const CheckpointInfo& restored);

// The fallback rule of a recovering host, over a session's index in commit order: which checkpoint
// it resumes from when the newest is damaged. Tries `attempt` on the entries newest first and
// returns the position in `index` of the first that succeeds; a kCorruption moves on to the next
// older entry, any other error stops the search and is returned, and when every entry is damaged
// the oldest's error is returned (kNotFound for an empty index). Every host resumes through it
// (scenarios/host_drive.h, ResumeLatestIntact; INV-CORRUPT), and so do the stores' damaged-base
// tests (engine/stores/delta_chain_test_util.h), with a lookup for the attempt.
Result<size_t> FallBackToNewestIntact(const std::vector<StoreEntry>& index,
                                      const std::function<Status(const StoreEntry&)>& attempt);

}  // namespace stepfault
