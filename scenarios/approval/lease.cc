// HostLease (see lease.h).
#include "scenarios/approval/lease.h"

namespace stepfault::scenarios {

Result<std::unique_ptr<HostLease>> AcquireLease(Env* env, const std::string& dir) {
  Result<std::unique_ptr<FileLock>> lock = env->LockFile(JoinPath(dir, kLeaseFileName));
  if (!lock.ok()) {
    if (lock.status().code() == StatusCode::kBusy) {
      return Status::Busy("another host is running on directory " + dir + " (it holds " +
                          std::string(kLeaseFileName) + "); wait for it to finish");
    }
    return lock.status().WithContext("taking the host lease on directory " + dir);
  }
  return std::make_unique<HostLease>(dir, std::move(lock).value());
}

}  // namespace stepfault::scenarios
