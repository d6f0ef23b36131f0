// FailingEnv: per-kind call counters and the rules that turn one call into EIO/ENOSPC.
#include "faults/failing_env.h"

namespace stepfault::faults {
namespace {

// Forwards to the real file and asks the env before each Append and Sync.
class FailingWritableFile final : public WritableFile {
 public:
  FailingWritableFile(FailingEnv* env, std::string path, std::unique_ptr<WritableFile> base)
      : env_(env), path_(std::move(path)), base_(std::move(base)) {}
  Status Append(std::string_view data) override {
    SF_RETURN_IF_ERROR(env_->Hit(IoOp::kWrite, path_));
    return base_->Append(data);
  }
  Status Sync() override {
    SF_RETURN_IF_ERROR(env_->Hit(IoOp::kSync, path_));
    return base_->Sync();
  }
  Status Close() override { return base_->Close(); }

 private:
  FailingEnv* env_;
  std::string path_;
  std::unique_ptr<WritableFile> base_;
};

}  // namespace

std::string_view IoOpName(IoOp op) {
  switch (op) {
    case IoOp::kWrite:
      return "write";
    case IoOp::kSync:
      return "sync";
    case IoOp::kRename:
      return "rename";
    case IoOp::kUnlink:
      return "unlink";
    case IoOp::kDirSync:
      return "dirsync";
    case IoOp::kCreate:
      return "create";
  }
  return "?";
}

std::string IoFailureRule::ToString() const {
  return std::string(IoOpName(op)) + "#" + std::to_string(nth) + ":" +
         (error == IoError::kEio ? "EIO" : "ENOSPC") + (persistent ? "+persistent" : "");
}

void FailingEnv::Arm(const IoFailureRule& rule) {
  SF_CHECK(rule.nth >= 1);
  std::lock_guard<std::mutex> lock(mu_);
  rules_[rule.op] = rule;
  calls_[rule.op] = 0;
}

void FailingEnv::DisarmAll() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
}

uint64_t FailingEnv::Calls(IoOp op) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = calls_.find(op);
  return it == calls_.end() ? 0 : it->second;
}

uint64_t FailingEnv::InjectedCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return injected_;
}

Status FailingEnv::Hit(IoOp op, const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t call = ++calls_[op];
  auto it = rules_.find(op);
  if (it == rules_.end()) return Status::Ok();
  const IoFailureRule& rule = it->second;
  const bool fires = call == rule.nth || (rule.persistent && call > rule.nth);
  if (!fires) return Status::Ok();
  ++injected_;
  const bool no_space = rule.error == IoError::kEnospc;
  std::string message = "injected " + std::string(no_space ? "ENOSPC" : "EIO") + " on " +
                        std::string(IoOpName(op)) + " '" + path + "' (call #" +
                        std::to_string(call) + ", rule " + rule.ToString() + ")";
  return Status(no_space ? StatusCode::kNoSpace : StatusCode::kIOError, std::move(message),
                /*injected=*/true);
}

Result<std::unique_ptr<WritableFile>> FailingEnv::NewWritableFile(const std::string& path) {
  SF_RETURN_IF_ERROR(Hit(IoOp::kCreate, path));
  SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> base, target()->NewWritableFile(path));
  return std::unique_ptr<WritableFile>(new FailingWritableFile(this, path, std::move(base)));
}

Result<std::unique_ptr<WritableFile>> FailingEnv::NewAppendableFile(const std::string& path) {
  SF_RETURN_IF_ERROR(Hit(IoOp::kCreate, path));
  SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> base, target()->NewAppendableFile(path));
  return std::unique_ptr<WritableFile>(new FailingWritableFile(this, path, std::move(base)));
}

Status FailingEnv::RemoveFile(const std::string& path) {
  SF_RETURN_IF_ERROR(Hit(IoOp::kUnlink, path));
  return target()->RemoveFile(path);
}

Status FailingEnv::RenameFile(const std::string& from, const std::string& to) {
  SF_RETURN_IF_ERROR(Hit(IoOp::kRename, from));
  return target()->RenameFile(from, to);
}

Status FailingEnv::SyncDir(const std::string& dir) {
  SF_RETURN_IF_ERROR(Hit(IoOp::kDirSync, dir));
  return target()->SyncDir(dir);
}

}  // namespace stepfault::faults
