// PosixEnv: the Env over the real file system (POSIX calls, errno mapped to Status).
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

#include "engine/env.h"

namespace stepfault {
namespace {

Status PosixError(std::string_view what, const std::string& path, int err) {
  std::string msg = std::string(what) + " '" + path + "': " + std::strerror(err);
  if (err == ENOSPC) return Status::NoSpace(msg);
  if (err == ENOENT) return Status::NotFound(msg);
  if (err == EEXIST) return Status::AlreadyExists(msg);
  if (err == EWOULDBLOCK) return Status::Busy(msg);
  return Status::IOError(msg);
}

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Status Append(std::string_view data) override {
    while (!data.empty()) {
      ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("write", path_, errno);
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return Status::Ok();
  }
  // One gathered write (writev) of every part: the kernel copies from the parts, so the caller
  // builds no staging buffer. A short write resumes where it stopped, like Append.
  Status AppendParts(std::span<const std::string_view> parts) override {
    std::vector<iovec> iov;
    iov.reserve(parts.size());
    for (std::string_view p : parts) {
      if (!p.empty()) iov.push_back(iovec{const_cast<char*>(p.data()), p.size()});
    }
    size_t next = 0;
    while (next < iov.size()) {
      const int count = static_cast<int>(std::min<size_t>(iov.size() - next, IOV_MAX));
      ssize_t n = ::writev(fd_, &iov[next], count);
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError("write", path_, errno);
      }
      auto left = static_cast<size_t>(n);
      while (next < iov.size() && left >= iov[next].iov_len) left -= iov[next++].iov_len;
      if (left > 0) {  // a part written in part: skip what went out
        iov[next].iov_base = static_cast<char*>(iov[next].iov_base) + left;
        iov[next].iov_len -= left;
      }
    }
    return Status::Ok();
  }
  Status Sync() override {
    if (::fsync(fd_) != 0) return PosixError("fsync", path_, errno);
    return Status::Ok();
  }
  Status Close() override {
    if (fd_ < 0) return Status::Ok();
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return PosixError("close", path_, errno);
    return Status::Ok();
  }

 private:
  std::string path_;
  int fd_;
};

class PosixFileLock final : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }

 private:
  int fd_;
};

class PosixEnvImpl final : public Env {
 public:
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    return Open(path, O_TRUNC);
  }
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(const std::string& path) override {
    return Open(path, O_APPEND);
  }
  Result<std::string> ReadFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return PosixError("open", path, errno);
    std::string out;
    char buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return PosixError("read", path, err);
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
  }
  Result<bool> FileExists(const std::string& path) override {
    return ::access(path.c_str(), F_OK) == 0;
  }
  Result<uint64_t> GetFileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError("stat", path, errno);
    return static_cast<uint64_t>(st.st_size);
  }
  Result<std::vector<std::string>> GetChildren(const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return PosixError("opendir", dir, errno);
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
  }
  Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return PosixError("unlink", path, errno);
    return Status::Ok();
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return PosixError("rename", from, errno);
    return Status::Ok();
  }
  Status CreateDirIfMissing(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return PosixError("mkdir", dir, errno);
    return Status::Ok();
  }
  Status SyncDir(const std::string& dir) override {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return PosixError("open directory", dir, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return PosixError("fsync directory", dir, err);
    return Status::Ok();
  }
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError("open lock", path, errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) {
        return Status::Busy("'" + path + "' is locked by another process or store; stop it first");
      }
      return PosixError("flock", path, err);
    }
    return std::unique_ptr<FileLock>(new PosixFileLock(fd));
  }

 private:
  Result<std::unique_ptr<WritableFile>> Open(const std::string& path, int mode) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | mode, 0644);
    if (fd < 0) return PosixError("open", path, errno);
    return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd));
  }
};

}  // namespace

Env* PosixEnv() {
  static PosixEnvImpl* env = new PosixEnvImpl();
  return env;
}

}  // namespace stepfault
