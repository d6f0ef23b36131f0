// Env: the file-system seam. Every file operation of the engine, its stores and the scenarios goes
// through an Env (as leveldb's Env), so the same code runs on the real disk (PosixEnv) and on the
// simulated file system in faults/ that crashes and loses power on command.
//
// Contract, which every Env implements and the stores rely on:
//  - NewWritableFile creates or truncates; bytes appended are visible to readers at once but
//    durable only after Sync() (fsync). A new directory entry (create, rename, unlink) is durable
//    only after SyncDir() on its parent directory.
//  - RenameFile atomically replaces the target.
//  - LockFile takes an exclusive advisory lock, refused with kBusy while another holder has it
//    (in this process or another); the lock is released when the FileLock is destroyed.
//  - GetChildren returns bare names in byte order.
//  - AppendParts(parts) is Append of the parts' concatenation: the same bytes, one write op (one
//    fault point, torn or lost as one write by a simulated power loss). The default builds that
//    concatenation and calls Append, so an Env that does not override it keeps its crash model
//    exactly; PosixEnv overrides it with a gathered write (writev), which spares the caller a copy.
// Thread-safety: implementations are safe for concurrent use of distinct files.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace stepfault {

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  // Appends the concatenation of `parts` as one append (see the contract above).
  virtual Status AppendParts(std::span<const std::string_view> parts);
  // Makes every appended byte durable (fsync).
  virtual Status Sync() = 0;
  virtual Status Close() = 0;
};

// An exclusive lock on a path; released on destruction.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

class Env {
 public:
  virtual ~Env() = default;

  virtual Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) = 0;
  virtual Result<std::unique_ptr<WritableFile>> NewAppendableFile(const std::string& path) = 0;
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  virtual Result<bool> FileExists(const std::string& path) = 0;
  virtual Result<uint64_t> GetFileSize(const std::string& path) = 0;
  virtual Result<std::vector<std::string>> GetChildren(const std::string& dir) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  virtual Status CreateDirIfMissing(const std::string& dir) = 0;
  virtual Status SyncDir(const std::string& dir) = 0;
  virtual Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) = 0;
};

// Forwards every call to another Env, so a wrapper overrides only what it needs.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& p) override {
    return target_->NewWritableFile(p);
  }
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(const std::string& p) override {
    return target_->NewAppendableFile(p);
  }
  Result<std::string> ReadFile(const std::string& p) override { return target_->ReadFile(p); }
  Result<bool> FileExists(const std::string& p) override { return target_->FileExists(p); }
  Result<uint64_t> GetFileSize(const std::string& p) override { return target_->GetFileSize(p); }
  Result<std::vector<std::string>> GetChildren(const std::string& d) override {
    return target_->GetChildren(d);
  }
  Status RemoveFile(const std::string& p) override { return target_->RemoveFile(p); }
  Status RenameFile(const std::string& f, const std::string& t) override {
    return target_->RenameFile(f, t);
  }
  Status CreateDirIfMissing(const std::string& d) override {
    return target_->CreateDirIfMissing(d);
  }
  Status SyncDir(const std::string& d) override { return target_->SyncDir(d); }
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& p) override {
    return target_->LockFile(p);
  }

 private:
  Env* target_;
};

// The real file system. Never destroyed; safe to share.
Env* PosixEnv();

// Path helpers (no I/O).
std::string JoinPath(std::string_view dir, std::string_view name);
std::string DirName(std::string_view path);
std::string BaseName(std::string_view path);

// Publishes `data` at dir/name atomically and durably: write dir/name.tmp, fsync it, rename it
// into place, fsync the directory. On failure the previous content of dir/name (if any) is intact
// and a leftover .tmp may remain (callers remove leftovers on open).
Status WriteFileAtomically(Env* env, const std::string& dir, const std::string& name,
                           std::string_view data);
// The same for the concatenation of `parts`, written by one AppendParts (no staging copy on
// PosixEnv): the same bytes, operations and crash windows as WriteFileAtomically of the whole.
Status WriteFileAtomically(Env* env, const std::string& dir, const std::string& name,
                           std::span<const std::string_view> parts);

// THE RECOVERY RULE (docs/engine-semantics.md 10.1, "Durability of inherited state"): after a
// crash, what the dead process wrote may still be only in the page cache, and a file it created,
// renamed or unlinked may not be durable in its directory. A process that opens durable state
// left by another process therefore makes it durable BEFORE it relies on it: it fsyncs every file
// of `file_names` in `dir` that exists (the files it will trust), then `dir` itself (its entries:
// creates, renames and unlinks of the dead process), then the parent of `dir` (the entry of `dir`
// itself). A missing `dir` holds nothing inherited: Ok. Without this, a power loss after recovery
// can take away state the recovered process already acted on (a decision recorded, a checkpoint
// resumed from). Every durable store calls it at open; SQLite's own hot-journal rollback is made
// durable by SQLite, but a journal *deletion* that was not yet directory-synced is not, which is
// why SQLite databases are covered too.
Status MakeInheritedDurable(Env* env, const std::string& dir,
                            const std::vector<std::string>& file_names);

// Suffix of the temporary files WriteFileAtomically leaves behind when interrupted.
inline constexpr std::string_view kTempSuffix = ".tmp";

}  // namespace stepfault
