// ProbedEnv: an Env over another Env (normally PosixEnv) that reports the file-system fault points
// to a FaultHook before each mutating operation, with the names the simulated file system uses, so
// a real process (the CLI on the real disk) can fail or stop at fs points too.
//
// Points: fs.create[ROLE] (NewWritableFile/NewAppendableFile creating a new file),
// fs.truncate[ROLE] (NewWritableFile over an existing non-empty file), fs.write[ROLE] (every
// Append), fs.fsync[ROLE] (Sync), fs.rename[ROLE of the source], fs.unlink[ROLE] and
// fs.dirsync[ROLE of the directory path]. Roles come from the classifier (DefaultRoleClassifier()
// when none is given). Reads, listing, sizes, Close, CreateDirIfMissing and LockFile are not
// points. Decisions: kProceed does the operation; kFail does not do it and returns Status(code,
// "injected EIO|ENOSPC at <point>", injected); kDie throws CrashSignal (nothing can be frozen on a
// real disk: the caller ends the process or the life). Thread-safety: as safe as the hook and the
// target; the hook is usually single-threaded.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/env.h"
#include "faults/fault_hook.h"

namespace stepfault::faults {

using RoleClassifier = std::function<std::string(const std::string& path)>;

class ProbedEnv : public EnvWrapper {
 public:
  // `target` and `hook` are not owned and must outlive the env and every file it gives out.
  ProbedEnv(Env* target, FaultHook* hook, RoleClassifier classifier = nullptr);

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(const std::string& path) override;
  Status RemoveFile(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& dir) override;

  // Asks the hook at "<fs_point>[<role of path>]" (fs_point: a points::kFs* name): Ok to proceed,
  // the injected Status to fail; throws CrashSignal on kDie.
  Status Point(std::string_view fs_point, const std::string& path);

 private:
  FaultHook* hook_;
  RoleClassifier classifier_;
};

}  // namespace stepfault::faults
