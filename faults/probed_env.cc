// ProbedEnv: fault points in front of a real Env.
#include "faults/probed_env.h"

#include "engine/probe_points.h"
#include "faults/points.h"

namespace stepfault::faults {
namespace {

class ProbedWritableFile final : public WritableFile {
 public:
  ProbedWritableFile(ProbedEnv* env, std::string path, std::unique_ptr<WritableFile> target)
      : env_(env), path_(std::move(path)), target_(std::move(target)) {}

  Status Append(std::string_view data) override {
    SF_RETURN_IF_ERROR(env_->Point(points::kFsWrite, path_));
    return target_->Append(data);
  }
  Status Sync() override {
    SF_RETURN_IF_ERROR(env_->Point(points::kFsFsync, path_));
    return target_->Sync();
  }
  Status Close() override { return target_->Close(); }

 private:
  ProbedEnv* env_;
  std::string path_;
  std::unique_ptr<WritableFile> target_;
};

Result<std::unique_ptr<WritableFile>> Wrap(ProbedEnv* env, const std::string& path,
                                           Result<std::unique_ptr<WritableFile>> file) {
  if (!file.ok()) return file.status();
  return std::unique_ptr<WritableFile>(
      std::make_unique<ProbedWritableFile>(env, path, std::move(file).value()));
}

}  // namespace

ProbedEnv::ProbedEnv(Env* target, FaultHook* hook, RoleClassifier classifier)
    : EnvWrapper(target),
      hook_(hook),
      classifier_(classifier ? std::move(classifier) : DefaultRoleClassifier()) {
  SF_CHECK(hook_ != nullptr);
}

Status ProbedEnv::Point(std::string_view fs_point, const std::string& path) {
  const std::string point = std::string(fs_point) + "[" + classifier_(path) + "]";
  const Decision decision = hook_->OnPoint(point);
  switch (decision.kind) {
    case Decision::Kind::kProceed:
      return Status::Ok();
    case Decision::Kind::kFail: {
      const char* what = decision.fail_code == StatusCode::kNoSpace ? "ENOSPC" : "EIO";
      return Status(decision.fail_code, std::string("injected ") + what + " at " + point,
                    /*injected=*/true);
    }
    case Decision::Kind::kDie:
      throw CrashSignal{decision.death, point};
  }
  SF_CHECK(false && "unknown Decision::Kind");
  return Status::Internal("unreachable");
}

Result<std::unique_ptr<WritableFile>> ProbedEnv::NewWritableFile(const std::string& path) {
  SF_ASSIGN_OR_RETURN(bool exists, target()->FileExists(path));
  if (!exists) {
    SF_RETURN_IF_ERROR(Point(points::kFsCreate, path));
  } else {
    SF_ASSIGN_OR_RETURN(uint64_t size, target()->GetFileSize(path));
    if (size > 0) SF_RETURN_IF_ERROR(Point(points::kFsTruncate, path));
  }
  return Wrap(this, path, target()->NewWritableFile(path));
}

Result<std::unique_ptr<WritableFile>> ProbedEnv::NewAppendableFile(const std::string& path) {
  SF_ASSIGN_OR_RETURN(bool exists, target()->FileExists(path));
  if (!exists) SF_RETURN_IF_ERROR(Point(points::kFsCreate, path));
  return Wrap(this, path, target()->NewAppendableFile(path));
}

Status ProbedEnv::RemoveFile(const std::string& path) {
  SF_RETURN_IF_ERROR(Point(points::kFsUnlink, path));
  return target()->RemoveFile(path);
}

Status ProbedEnv::RenameFile(const std::string& from, const std::string& to) {
  SF_RETURN_IF_ERROR(Point(points::kFsRename, from));
  return target()->RenameFile(from, to);
}

Status ProbedEnv::SyncDir(const std::string& dir) {
  SF_RETURN_IF_ERROR(Point(points::kFsDirsync, dir));
  return target()->SyncDir(dir);
}

}  // namespace stepfault::faults
