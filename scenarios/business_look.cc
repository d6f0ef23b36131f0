// LookOnce (see business_look.h): the key of a database's files, the private copy a look runs on,
// and the look counters.
#include "scenarios/business_look.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"

namespace stepfault::scenarios {
namespace {

std::atomic<uint64_t> looks_ran{0};
std::atomic<uint64_t> looks_kept_hits{0};
std::atomic<uint64_t> copies_made{0};

// Creates `dir` and every missing ancestor in `fs` (SimFs creates one level at a time).
Status CreateDirs(faults::SimFs& fs, const std::string& dir) {
  if (dir.empty() || dir == "/" || dir == ".") return Status::Ok();
  const std::string parent = DirName(dir);
  if (parent != dir) SF_RETURN_IF_ERROR(CreateDirs(fs, parent));
  return fs.CreateDirIfMissing(dir);
}

Status CopyFile(Env* from, faults::SimFs& to, const std::string& path) {
  SF_ASSIGN_OR_RETURN(std::string bytes, from->ReadFile(path));
  SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, to.NewWritableFile(path));
  SF_RETURN_IF_ERROR(file->Append(bytes));
  return file->Close();
}

}  // namespace

Result<std::string> DatabaseFilesKey(Env* env, const std::string& db_path,
                                     const std::string& salt) {
  return FilesKey(env, salt, DirName(db_path), BaseName(db_path));
}

DatabaseCopy::DatabaseCopy() : fs_(std::make_unique<faults::SimFs>()) {}

DatabaseCopy::~DatabaseCopy() {
  if (!vfs_name_.empty()) faults::UnregisterSimVfs(vfs_name_);
}

Result<std::unique_ptr<DatabaseCopy>> DatabaseCopy::Make(Env* env, const std::string& db_path) {
  std::unique_ptr<DatabaseCopy> copy(new DatabaseCopy());
  const std::string dir = DirName(db_path);
  const std::string base = BaseName(db_path);
  SF_RETURN_IF_ERROR(CreateDirs(*copy->fs_, dir));
  SF_ASSIGN_OR_RETURN(bool exists, env->FileExists(dir));
  if (exists) {
    SF_ASSIGN_OR_RETURN(std::vector<std::string> children, env->GetChildren(dir));
    std::sort(children.begin(), children.end());
    for (const std::string& name : children) {
      if (name.starts_with(base))
        SF_RETURN_IF_ERROR(CopyFile(env, *copy->fs_, JoinPath(dir, name)));
    }
  }
  // A name of its own per copy, so concurrent looks never share a VFS; the seed only feeds
  // xRandomness, which reading and rolling back a journal do not draw on.
  const std::string name = "stepfault-look-" + std::to_string(copies_made.fetch_add(1));
  SF_RETURN_IF_ERROR(faults::RegisterSimVfs(name, copy->fs_.get(), /*seed=*/0));
  copy->vfs_name_ = name;
  return copy;
}

LookCounts LookCountsForTesting() { return {looks_ran.load(), looks_kept_hits.load()}; }

void CountLook(bool hit) { (hit ? looks_kept_hits : looks_ran).fetch_add(1); }

}  // namespace stepfault::scenarios
