// FailingEnv: a small deterministic I/O-error injector for store tests (an EnvWrapper).
//
// Arm it with "fail the Nth call of operation kind K with EIO/ENOSPC", transient (that call only)
// or persistent (that call and every later call of K). Calls are counted per kind from the moment
// the rule is armed, 1-based, so a test can walk N = 1, 2, 3 ... over one commit until nothing
// fires (the SQLite test_vfs countdown method). An injected failure is a Status with
// injected() == true and a message naming the operation, the path and the call number.
// Nothing here crashes or loses data: that is the simulated file system's job.
// Thread-safety: safe for concurrent use; counters and rules are guarded by one mutex.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engine/env.h"

namespace stepfault::faults {

enum class IoOp {
  kWrite,    // WritableFile::Append
  kSync,     // WritableFile::Sync
  kRename,   // Env::RenameFile
  kUnlink,   // Env::RemoveFile
  kDirSync,  // Env::SyncDir
  kCreate,   // Env::NewWritableFile / NewAppendableFile
};

enum class IoError { kEio, kEnospc };

std::string_view IoOpName(IoOp op);

struct IoFailureRule {
  IoOp op = IoOp::kWrite;
  uint64_t nth = 1;  // 1-based call number (counted from arming) that fails first
  IoError error = IoError::kEio;
  bool persistent = false;  // also fail every later call of `op`

  // "rename#2:EIO" or "sync#1:ENOSPC+persistent".
  std::string ToString() const;
};

class FailingEnv : public EnvWrapper {
 public:
  // REQUIRES: target outlives this object.
  explicit FailingEnv(Env* target) : EnvWrapper(target) {}

  // Arms `rule` (replacing any rule for the same op) and restarts that op's call counter.
  // REQUIRES: rule.nth >= 1.
  void Arm(const IoFailureRule& rule);
  // Disarms every rule; counters keep counting.
  void DisarmAll();
  // Calls of `op` since it was last armed (or since construction).
  uint64_t Calls(IoOp op) const;
  // How many failures were injected in total.
  uint64_t InjectedCount() const;

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(const std::string& path) override;
  Status RemoveFile(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& dir) override;

  // Counts one call of `op` on `path`; returns the injected failure if a rule fires. Used by the
  // file wrapper too.
  Status Hit(IoOp op, const std::string& path);

 private:
  mutable std::mutex mu_;
  std::map<IoOp, uint64_t> calls_;
  std::map<IoOp, IoFailureRule> rules_;
  uint64_t injected_ = 0;
};

}  // namespace stepfault::faults
