// SimFs: the Env operations, handles and locks of the simulated file system. The crash model is the
// prose at the top of faults/sim_fs.h; CrashClone, damage and inspection are in sim_fs_clone.cc.
// Thread-safety: one thread drives a SimFs and its handles.
#include "faults/sim_fs.h"

#include "engine/probe_points.h"
#include "faults/sim_fs_internal.h"

namespace stepfault::faults {
namespace {

// Where a normalized path lives: its parent directory (null if missing) and its name there.
struct Location {
  SimDir* parent = nullptr;
  std::string parent_path;
  std::string name;
  const SimEntry* entry = nullptr;  // null if no such name
};

Result<Location> Locate(SimWorld& world, const std::string& raw_path) {
  SF_ASSIGN_OR_RETURN(std::string path, NormalizeSimPath(raw_path));
  if (path == "/") {
    return Status::InvalidArgument("'/' is the root directory, not a file; name a file under it");
  }
  Location loc;
  loc.parent_path = DirName(path);
  loc.name = BaseName(path);
  auto dir = world.dirs.find(loc.parent_path);
  if (dir == world.dirs.end()) return loc;
  loc.parent = &dir->second;
  auto it = loc.parent->entries.find(loc.name);
  if (it != loc.parent->entries.end()) loc.entry = &it->second;
  return loc;
}

std::string Full(const Location& loc) { return JoinPath(loc.parent_path, loc.name); }

Status MissingDir(const Location& loc) {
  return Status::NotFound(
      "directory '" + loc.parent_path + "' of '" + Full(loc) +
      "' does not exist in the simulated file system; CreateDirIfMissing first");
}

Status MissingFile(const std::string& path) {
  return Status::NotFound("file '" + path + "' does not exist in the simulated file system");
}

// Finds an existing file (not a directory) by its current name.
Result<SimInodePtr> FindFile(SimWorld& world, const std::string& path) {
  SF_ASSIGN_OR_RETURN(Location loc, Locate(world, path));
  if (loc.entry == nullptr) return MissingFile(Full(loc));
  if (loc.entry->is_dir()) {
    return Status::InvalidArgument("'" + Full(loc) + "' is a directory, not a file");
  }
  return loc.entry->inode;
}

class SimWritableFile final : public WritableFile {
 public:
  explicit SimWritableFile(std::unique_ptr<SimFile> file) : file_(std::move(file)) {}
  Status Append(std::string_view data) override {
    SF_RETURN_IF_ERROR(CheckOpen());
    return file_->Append(data);
  }
  Status Sync() override {
    SF_RETURN_IF_ERROR(CheckOpen());
    return file_->Sync();
  }
  Status Close() override {
    SF_RETURN_IF_ERROR(CheckOpen());
    closed_ = true;
    return Status::Ok();
  }

 private:
  Status CheckOpen() const {
    if (closed_) return Status::FailedPrecondition("simulated file used after Close()");
    return Status::Ok();
  }
  std::unique_ptr<SimFile> file_;
  bool closed_ = false;
};

class SimFileLock final : public FileLock {
 public:
  SimFileLock(std::shared_ptr<SimWorld> world, std::string path)
      : world_(std::move(world)), path_(std::move(path)) {}
  ~SimFileLock() override { world_->locked_paths.erase(path_); }

 private:
  std::shared_ptr<SimWorld> world_;
  std::string path_;
};

}  // namespace

SimFile::SimFile(std::shared_ptr<SimWorld> world, SimInodePtr inode, std::string role)
    : world_(std::move(world)), inode_(std::move(inode)), role_(std::move(role)) {}
SimFile::~SimFile() = default;

Result<size_t> SimFile::ReadAt(uint64_t offset, size_t n, char* out) {
  SF_RETURN_IF_ERROR(world_->Enter());
  return inode_->data.Read(offset, n, out);
}

Status SimFile::WriteAt(uint64_t offset, std::string_view data) {
  SF_RETURN_IF_ERROR(world_->Point(points::kFsWrite, role_));
  world_->Write(inode_, offset, data);
  return Status::Ok();
}

Status SimFile::Append(std::string_view data) {
  SF_RETURN_IF_ERROR(world_->Point(points::kFsWrite, role_));
  world_->Write(inode_, inode_->data.size(), data);
  return Status::Ok();
}

Status SimFile::Truncate(uint64_t size) {
  SF_RETURN_IF_ERROR(world_->Point(points::kFsTruncate, role_));
  if (size != inode_->data.size()) inode_->data.Resize(size);
  inode_->Touch();
  return Status::Ok();
}

Status SimFile::Sync() {
  SF_RETURN_IF_ERROR(world_->Point(points::kFsFsync, role_));
  world_->SyncInode(inode_);
  return Status::Ok();
}

Result<uint64_t> SimFile::Size() {
  SF_RETURN_IF_ERROR(world_->Enter());
  return static_cast<uint64_t>(inode_->data.size());
}

SimFs::SimFs() : world_(std::make_shared<SimWorld>()) { world_->dirs["/"]; }
SimFs::SimFs(std::shared_ptr<SimWorld> world) : world_(std::move(world)) {}
SimFs::~SimFs() = default;

Result<std::unique_ptr<SimFile>> SimFs::OpenFile(const std::string& path, bool create,
                                                 bool exclusive) {
  if (world_->frozen) return world_->Enter();
  SF_ASSIGN_OR_RETURN(Location loc, Locate(*world_, path));
  const std::string full = Full(loc);
  const std::string role = world_->Role(full);
  if (loc.entry != nullptr) {
    if (loc.entry->is_dir()) {
      return Status::InvalidArgument("'" + full + "' is a directory, not a file");
    }
    if (exclusive) return Status::AlreadyExists("file '" + full + "' already exists");
    SF_RETURN_IF_ERROR(world_->Enter());
    return std::make_unique<SimFile>(world_, loc.entry->inode, role);
  }
  if (loc.parent == nullptr) return MissingDir(loc);
  if (!create) return MissingFile(full);
  SF_RETURN_IF_ERROR(world_->Point(points::kFsCreate, role));
  auto inode = std::make_shared<SimInode>();
  loc.parent->Put(loc.name, SimEntry{inode});
  return std::make_unique<SimFile>(world_, std::move(inode), role);
}

Result<std::unique_ptr<SimFile>> SimFs::OpenAnonymousFile() {
  SF_RETURN_IF_ERROR(world_->Point(points::kFsCreate, kSimTempRole));
  return std::make_unique<SimFile>(world_, std::make_shared<SimInode>(), std::string(kSimTempRole));
}

Result<std::unique_ptr<WritableFile>> SimFs::NewWritableFile(const std::string& path) {
  SF_ASSIGN_OR_RETURN(std::unique_ptr<SimFile> file, OpenFile(path, /*create=*/true, false));
  SF_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (size > 0) SF_RETURN_IF_ERROR(file->Truncate(0));
  return std::unique_ptr<WritableFile>(new SimWritableFile(std::move(file)));
}

Result<std::unique_ptr<WritableFile>> SimFs::NewAppendableFile(const std::string& path) {
  SF_ASSIGN_OR_RETURN(std::unique_ptr<SimFile> file, OpenFile(path, /*create=*/true, false));
  return std::unique_ptr<WritableFile>(new SimWritableFile(std::move(file)));
}

Result<std::string> SimFs::ReadFile(const std::string& path) {
  SF_RETURN_IF_ERROR(world_->Enter());
  SF_ASSIGN_OR_RETURN(SimInodePtr inode, FindFile(*world_, path));
  return inode->data.ToString();
}

Result<std::string> SimFs::ReadFileHash(const std::string& path) {
  SF_RETURN_IF_ERROR(world_->Enter());
  SF_ASSIGN_OR_RETURN(SimInodePtr inode, FindFile(*world_, path));
  return CurrentBytesHash(*inode);
}

Result<bool> SimFs::FileExists(const std::string& path) {
  SF_RETURN_IF_ERROR(world_->Enter());
  SF_ASSIGN_OR_RETURN(std::string norm, NormalizeSimPath(path));
  if (world_->dirs.count(norm) > 0) return true;
  SF_ASSIGN_OR_RETURN(Location loc, Locate(*world_, norm));
  return loc.entry != nullptr;
}

Result<uint64_t> SimFs::GetFileSize(const std::string& path) {
  SF_RETURN_IF_ERROR(world_->Enter());
  SF_ASSIGN_OR_RETURN(SimInodePtr inode, FindFile(*world_, path));
  return static_cast<uint64_t>(inode->data.size());
}

Result<std::vector<std::string>> SimFs::GetChildren(const std::string& dir) {
  SF_RETURN_IF_ERROR(world_->Enter());
  SF_ASSIGN_OR_RETURN(std::string norm, NormalizeSimPath(dir));
  auto it = world_->dirs.find(norm);
  if (it == world_->dirs.end()) {
    return Status::NotFound("directory '" + norm + "' does not exist in the simulated file system");
  }
  std::vector<std::string> names;
  names.reserve(it->second.entries.size());
  for (const auto& [name, entry] : it->second.entries) names.push_back(name);
  return names;  // std::map order is byte order
}

Status SimFs::RemoveFile(const std::string& path) {
  if (world_->frozen) return world_->Enter();
  SF_ASSIGN_OR_RETURN(Location loc, Locate(*world_, path));
  if (loc.entry == nullptr) return MissingFile(Full(loc));
  if (loc.entry->is_dir()) {
    return Status::InvalidArgument("'" + Full(loc) + "' is a directory; RemoveFile removes files");
  }
  SF_RETURN_IF_ERROR(world_->Point(points::kFsUnlink, world_->Role(Full(loc))));
  loc.parent->Remove(loc.name);
  return Status::Ok();
}

Status SimFs::RenameFile(const std::string& from, const std::string& to) {
  if (world_->frozen) return world_->Enter();
  SF_ASSIGN_OR_RETURN(Location src, Locate(*world_, from));
  SF_ASSIGN_OR_RETURN(Location dst, Locate(*world_, to));
  if (src.entry == nullptr) return MissingFile(Full(src));
  if (src.entry->is_dir()) {
    return Status::InvalidArgument("'" + Full(src) + "' is a directory; only files are renamed");
  }
  if (dst.parent == nullptr) return MissingDir(dst);
  if (dst.entry != nullptr && dst.entry->is_dir()) {
    return Status::InvalidArgument("rename target '" + Full(dst) + "' is a directory");
  }
  SF_RETURN_IF_ERROR(world_->Point(points::kFsRename, world_->Role(Full(src))));
  if (Full(src) == Full(dst)) return Status::Ok();
  SimEntry moved = *src.entry;
  src.parent->Remove(src.name);
  dst.parent->Put(dst.name, std::move(moved));
  return Status::Ok();
}

Status SimFs::CreateDirIfMissing(const std::string& dir) {
  SF_RETURN_IF_ERROR(world_->Enter());
  SF_ASSIGN_OR_RETURN(std::string norm, NormalizeSimPath(dir));
  if (world_->dirs.count(norm) > 0) return Status::Ok();
  SF_ASSIGN_OR_RETURN(Location loc, Locate(*world_, norm));
  if (loc.parent == nullptr) return MissingDir(loc);
  if (loc.entry != nullptr) {
    return Status::AlreadyExists("'" + norm + "' exists and is a file, not a directory");
  }
  loc.parent->Put(loc.name, SimEntry{});
  world_->dirs[norm];
  return Status::Ok();
}

Status SimFs::SyncDir(const std::string& dir) {
  if (world_->frozen) return world_->Enter();
  SF_ASSIGN_OR_RETURN(std::string norm, NormalizeSimPath(dir));
  auto it = world_->dirs.find(norm);
  if (it == world_->dirs.end()) {
    return Status::NotFound("directory '" + norm + "' does not exist in the simulated file system");
  }
  SF_RETURN_IF_ERROR(world_->Point(points::kFsDirsync, world_->Role(norm)));
  it->second.Sync();
  return Status::Ok();
}

Result<std::unique_ptr<FileLock>> SimFs::LockFile(const std::string& path) {
  SF_RETURN_IF_ERROR(world_->Enter());
  SF_ASSIGN_OR_RETURN(Location loc, Locate(*world_, path));
  const std::string full = Full(loc);
  if (loc.entry == nullptr) {
    if (loc.parent == nullptr) return MissingDir(loc);
    loc.parent->Put(loc.name, SimEntry{std::make_shared<SimInode>()});
  } else if (loc.entry->is_dir()) {
    return Status::InvalidArgument("lock path '" + full + "' is a directory");
  }
  if (!world_->locked_paths.insert(full).second) {
    return Status::Busy("'" + full + "' is locked by another store in this simulated world; " +
                        "close it first");
  }
  return std::unique_ptr<FileLock>(new SimFileLock(world_, full));
}

void SimFs::Freeze(DeathKind kind, std::string_view point) { world_->Freeze(kind, point); }
bool SimFs::frozen() const { return world_->frozen; }
void SimFs::SetHook(FaultHook* hook) { world_->hook = hook; }
void SimFs::SetRoleClassifier(std::function<std::string(const std::string& path)> classifier) {
  world_->classifier = std::move(classifier);
}
uint64_t SimFs::op_count() const { return world_->op_count; }

}  // namespace stepfault::faults
