// Limit calibration and the raw POSIX writers.
#include "tools/bench/limits.h"

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "tools/bench/bench_common.h"

namespace stepfault::bench {

std::string_view LimitKindName(LimitKind kind) {
  switch (kind) {
    case LimitKind::kNone:
      return "none";
    case LimitKind::kMemcpy:
      return "memcpy";
    case LimitKind::kAtomicFile:
      return "atomic_file";
    case LimitKind::kAppendSync:
      return "append_fdatasync";
  }
  return "unknown";
}

namespace {

Status Errno(const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(errno));
}

Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  size_t done = 0;
  for (int attempts = 0; done < bytes.size(); ++attempts) {
    SF_CHECK(attempts < 1'000'000);  // bounded: a write that never progresses is a bug
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write " + path);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Median seconds per operation, by the method in limits.h. CPU-bound limits are timed in thread
// CPU time, as the CPU-bound benchmarks are; disk limits in wall time, as the disk benchmarks are.
template <typename Op>
double Calibrate(Op op, double target_batch_seconds, int samples, bool wall) {
  auto now = [wall] { return wall ? WallSeconds() : ThreadCpuSeconds(); };
  auto time_batch = [&](int64_t reps) {
    const double start = now();
    for (int64_t i = 0; i < reps; ++i) op();
    return now() - start;
  };
  op();  // warm caches, page in buffers, create files
  int64_t reps = 1;
  while (reps < (int64_t{1} << 20) && time_batch(reps) < target_batch_seconds) reps *= 2;
  std::vector<double> per_op;
  for (int i = 0; i < samples; ++i) per_op.push_back(time_batch(reps) / static_cast<double>(reps));
  return Median(per_op);
}

double Measure(LimitKind kind, size_t bytes) {
  const std::string_view src = PoolSlice(bytes, /*salt=*/bytes);
  switch (kind) {
    case LimitKind::kMemcpy: {
      std::vector<char> dst(bytes, 0);
      return Calibrate(
          [&] {
            std::memcpy(dst.data(), src.data(), bytes);
            benchmark::ClobberMemory();
          },
          0.002, 9, /*wall=*/false);
    }
    case LimitKind::kAtomicFile: {
      const std::string dir = MakeScratchDir("limit-atomic");
      double s;
      {
        AtomicFileWriter w(dir);
        s = Calibrate([&] { SF_CHECK(w.Publish(src).ok()); }, 0.02, 5, /*wall=*/true);
      }
      RemoveScratchDir(dir);
      return s;
    }
    case LimitKind::kAppendSync: {
      const std::string dir = MakeScratchDir("limit-append");
      double s;
      {
        AppendSyncWriter w(dir);
        s = Calibrate(
            [&] {
              if (w.file_bytes() > (256u << 20)) SF_CHECK(w.Truncate().ok());
              SF_CHECK(w.Append(src).ok());
            },
            0.02, 5, /*wall=*/true);
      }
      RemoveScratchDir(dir);
      return s;
    }
    case LimitKind::kNone:
      break;
  }
  SF_CHECK(false);
  return 0;
}

}  // namespace

double ThreadCpuSeconds() {
  timespec ts;
  SF_CHECK(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double WallSeconds() {
  // Wall clock: allowed in tools/bench only.
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Limits& Limits::Global() {
  static Limits* limits = new Limits();
  return *limits;
}

double Limits::Seconds(LimitKind kind, size_t bytes) {
  SF_CHECK(kind != LimitKind::kNone && bytes > 0);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cache_.find({kind, bytes});
  if (it != cache_.end()) return it->second;
  const double s = Measure(kind, bytes);
  cache_[{kind, bytes}] = s;
  return s;
}

AtomicFileWriter::AtomicFileWriter(std::string dir) : dir_(std::move(dir)) {
  dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
  SF_CHECK(dir_fd_ >= 0);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

Status AtomicFileWriter::Publish(std::string_view bytes, std::string_view name) {
  const std::string final_path = dir_ + "/" + std::string(name);
  const std::string tmp = final_path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return Errno("open " + tmp);
  Status s = WriteAll(fd, bytes, tmp);
  if (s.ok() && ::fsync(fd) != 0) s = Errno("fsync " + tmp);
  if (::close(fd) != 0 && s.ok()) s = Errno("close " + tmp);
  SF_RETURN_IF_ERROR(s);
  if (::rename(tmp.c_str(), final_path.c_str()) != 0) return Errno("rename " + tmp);
  if (::fsync(dir_fd_) != 0) return Errno("fsync directory " + dir_);
  return Status::Ok();
}

AppendSyncWriter::AppendSyncWriter(std::string dir) : path_(std::move(dir) + "/log") {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  SF_CHECK(fd_ >= 0);
}

AppendSyncWriter::~AppendSyncWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Status AppendSyncWriter::Append(std::string_view bytes) {
  SF_RETURN_IF_ERROR(WriteAll(fd_, bytes, path_));
  if (::fdatasync(fd_) != 0) return Errno("fdatasync " + path_);
  file_bytes_ += bytes.size();
  return Status::Ok();
}

Status AppendSyncWriter::Truncate() {
  if (::ftruncate(fd_, 0) != 0) return Errno("ftruncate " + path_);
  if (::fdatasync(fd_) != 0) return Errno("fdatasync " + path_);
  file_bytes_ = 0;
  return Status::Ok();
}

LimitOp::LimitOp(LimitKind kind, size_t bytes) : bytes_(bytes) {
  SF_CHECK(kind == LimitKind::kAtomicFile || kind == LimitKind::kAppendSync);
  SF_CHECK(bytes > 0 && bytes <= kMaxSliceBytes);
  dir_ = MakeScratchDir(kind == LimitKind::kAtomicFile ? "op-atomic" : "op-append");
  if (kind == LimitKind::kAtomicFile) {
    atomic_ = std::make_unique<AtomicFileWriter>(dir_);
  } else {
    append_ = std::make_unique<AppendSyncWriter>(dir_);
  }
  Maintain();
}

LimitOp::~LimitOp() {
  atomic_.reset();
  append_.reset();
  RemoveScratchDir(dir_);
}

void LimitOp::Run() {
  ++runs_;
  const std::string_view src = buffer_;
  Status s;
  if (atomic_ == nullptr) {
    s = append_->Append(src);
  } else {
    char name[32];
    std::snprintf(name, sizeof(name), "checkpoint-%06llu", static_cast<unsigned long long>(runs_));
    s = atomic_->Publish(src, name);
    names_.push_back(name);
  }
  if (!s.ok())
    std::fprintf(stderr, "stepfault-bench: limit operation failed: %s\n", s.ToString().c_str());
  SF_CHECK(s.ok());
}

void LimitOp::Maintain() {
  // Fresh bytes for the next operation, copied into the buffer Run writes: a store writes the
  // buffer its commit has just built, so the limit too writes from memory just filled.
  const std::string_view next = PoolSlice(bytes_, /*salt=*/runs_ + 1);
  buffer_.assign(next.data(), next.size());
  if (append_ != nullptr && append_->file_bytes() > (256u << 20))
    SF_CHECK(append_->Truncate().ok());
  if (names_.size() >= kFreshNamesKept) {
    for (const std::string& name : names_) SF_CHECK(::unlink((dir_ + "/" + name).c_str()) == 0);
    names_.clear();
  }
}

}  // namespace stepfault::bench
