// Physical limits the checkpoint costs are compared against, measured in the same process on the
// same bytes: memcpy, a raw atomic file publish (write + fsync + rename + directory fsync) and a
// raw append + fdatasync to one file. POSIX calls directly; no Env, no store.
//
// Calibration (what the `ratio` counters divide by): for a (kind, size) the operation is repeated
// in batches whose count doubles until one batch takes at least the kind's target (2 ms for memcpy,
// 20 ms for the disk kinds, at most 2^20 repetitions); then several batches are timed (9 for
// memcpy, 5 for the disk kinds) and the median batch time divided by the batch count is the limit.
// memcpy is timed in thread CPU time (as the CPU-bound benchmarks, which report CPU time), the disk
// kinds in wall time (as the disk benchmarks, which use real time). Each (kind, size) is calibrated
// once and cached; main calibrates the sizes the selected benchmarks need before any benchmark
// runs, so a limit never changes during a run. Thread-safety: Limits is internally locked; the raw
// writers are single-threaded.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "engine/status.h"

namespace stepfault::bench {

enum class LimitKind { kNone, kMemcpy, kAtomicFile, kAppendSync };
std::string_view LimitKindName(LimitKind kind);

class Limits {
 public:
  static Limits& Global();
  // Median seconds of one operation of `kind` on `bytes` bytes; calibrates on first use.
  // REQUIRES: kind != kNone, bytes > 0.
  double Seconds(LimitKind kind, size_t bytes);

 private:
  std::mutex mu_;
  std::map<std::pair<LimitKind, size_t>, double> cache_;
};

// write(tmp) + fsync + close + rename(tmp, final) + fsync(dir), the publish step of a file store.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string dir);
  ~AtomicFileWriter();
  Status Publish(std::string_view bytes);

 private:
  std::string dir_;
  int dir_fd_ = -1;
};

// append + fdatasync to one file, the commit step of a log-structured store.
class AppendSyncWriter {
 public:
  explicit AppendSyncWriter(std::string dir);
  ~AppendSyncWriter();
  Status Append(std::string_view bytes);
  size_t file_bytes() const { return file_bytes_; }
  // Empties the file (outside any timed region) so long runs stay bounded.
  Status Truncate();

 private:
  std::string path_;
  int fd_ = -1;
  size_t file_bytes_ = 0;
};

}  // namespace stepfault::bench
