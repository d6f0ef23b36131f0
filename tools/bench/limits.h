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
// runs, so a limit never changes during a run.
// A disk's fsync latency does move during a run (1-20 ms for the same 2 MB within one session), so
// the durable store steps do not divide by a calibrated disk limit: they time a LimitOp of the
// same bytes interleaved with their own steps (durable_bench.h), and both see the same disk.
// Thread-safety: Limits is internally locked; the raw writers and LimitOp are single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  // Publishes `bytes` under `name` (replacing a file of that name).
  Status Publish(std::string_view bytes, std::string_view name = "checkpoint");

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

// One operation of a disk limit kind on `bytes` bytes, repeated on demand, for benchmarks that
// time the limit interleaved with what it bounds. Each Run writes a fresh slice of the byte pool
// (as each checkpoint is fresh bytes), copied into a buffer of its own by Maintain, into its own
// scratch directory.
// kAtomicFile publishes each operation under a new name, as a file store does (no file is
// replaced, so no blocks are freed inside the operation; the calibrated limit replaces one name),
// and Maintain removes them every kFreshNamesKept operations, as the step benchmark removes a
// store's directory when it rebuilds the run.
// REQUIRES: kind is kAtomicFile or kAppendSync.
class LimitOp {
 public:
  static constexpr size_t kFreshNamesKept = 128;
  LimitOp(LimitKind kind, size_t bytes);
  ~LimitOp();
  LimitOp(const LimitOp&) = delete;
  LimitOp& operator=(const LimitOp&) = delete;
  // The operation itself (what is timed). Aborts on an I/O error: a limit that fails is no limit.
  void Run();
  // Untimed upkeep before each operation: fills the buffer the next Run writes with a fresh slice
  // of the byte pool, empties the append log once it passes 256 MB, removes the published files
  // once there are kFreshNamesKept.
  void Maintain();
  // What the next Run writes.
  std::string_view buffer() const { return buffer_; }

 private:
  size_t bytes_;
  std::vector<std::string> names_;
  std::string buffer_;  // what the next Run writes
  uint64_t runs_ = 0;
  std::string dir_;
  std::unique_ptr<AtomicFileWriter> atomic_;
  std::unique_ptr<AppendSyncWriter> append_;
};

// Clocks for benchmarks that time parts of an iteration by hand (wall: steady clock).
double WallSeconds();
double ThreadCpuSeconds();

}  // namespace stepfault::bench
