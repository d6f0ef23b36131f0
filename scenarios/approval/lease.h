// HostLease: one host per scenario directory. The checkpoints, waiting.json and business.db of a
// directory are only consistent with each other if a single host drives them, so start/resume/
// status take an exclusive lock on dir/host.lease for their whole life (ADR-0054 style lease,
// local only: it excludes hosts on one machine and file system, not a distributed scheduler).
// The lock is released when the HostLease is destroyed, or when the holding process dies.
// Thread-safety: a HostLease is owned by one host; AcquireLease may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/env.h"
#include "engine/status.h"

namespace stepfault::scenarios {

inline constexpr std::string_view kLeaseFileName = "host.lease";

class HostLease {
 public:
  HostLease(std::string dir, std::unique_ptr<FileLock> lock)
      : dir_(std::move(dir)), lock_(std::move(lock)) {}
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::unique_ptr<FileLock> lock_;
};

// Takes the lease on `dir`; kBusy while another host (in this or another process) holds it.
// REQUIRES: `dir` exists.
Result<std::unique_ptr<HostLease>> AcquireLease(Env* env, const std::string& dir);

}  // namespace stepfault::scenarios
