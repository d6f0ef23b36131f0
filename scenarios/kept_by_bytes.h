// Results kept per process by the hashes of the bytes they were computed from.
//
// Two oracle-side caches share this: the reads of a checkpoint store's directory
// (scenarios/durable_checkpoints.cc) and the looks at a business database
// (scenarios/business_look.h). Both are pure functions of some files' bytes, so the key is the
// files' names and the 128-bit hash of each one's bytes (faults::HashBytes, the hash the world's
// Digest takes and every reuse of the explorer keys on; the simulated world keeps it on each file,
// so no bytes are copied or compared), built by FilesKey; KeptByBytes holds the results, bounded
// by a count of bytes the caller supplies per entry and by a count of entries, and is cleared whole
// when either passes its bound (kBytesMax, kEntriesMax). Thread-safety: FilesKey reads through
// `env` only; KeptByBytes is locked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "engine/env.h"
#include "engine/status.h"

namespace stepfault::scenarios {

// The key of the files of `dir` whose names begin with `name_prefix`: `salt`, `dir` and
// `name_prefix`, then each such file's name and hash (or its read error), in name order, every
// field length-prefixed so no two sets of files share a key. A directory that does not exist gives
// the key of no files.
Result<std::string> FilesKey(Env* env, std::string_view salt, const std::string& dir,
                             std::string_view name_prefix);

// What this thread allocated and has not freed since the meter was made: jemalloc's
// thread.allocated minus thread.deallocated (read through mallctl), for a cache to count what an
// entry really holds (a decoded store's trees are several times its documents' bytes: counting
// twice the documents let a 32 MB bound hold 126 MB; issue 27). nullopt when the process does
// not run on jemalloc (the tests and the sanitizer builds): the caller then estimates. Only memory
// and speed depend on it: a kept result is exact whatever is evicted.
class AllocatedSince {
 public:
  AllocatedSince();
  std::optional<size_t> Bytes() const;

 private:
  std::optional<uint64_t> start_;
};

// The process-wide kept results of one type (and one user, `Tag`).
template <typename T, typename Tag>
class KeptByBytes {
 public:
  static KeptByBytes& Get() {
    static KeptByBytes* kept = new KeptByBytes();  // never destroyed: forked workers exit at will
    return *kept;
  }
  std::optional<T> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = kept_.find(key);
    if (it == kept_.end()) return std::nullopt;
    return it->second;
  }
  // Keeps `value` under `key`, counting the key and `value_bytes` against the bound.
  void Keep(const std::string& key, const T& value, size_t value_bytes) {
    const size_t size = key.size() + value_bytes;
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes_ + size > kBytesMax || kept_.size() >= kEntriesMax) {
      kept_.clear();
      bytes_ = 0;
    }
    if (kept_.emplace(key, value).second) bytes_ += size;
  }

 private:
  static constexpr size_t kBytesMax = size_t{32} << 20;
  // Keys are short now (hashes), so results counted as 0 bytes (the looks') are bounded by count.
  static constexpr size_t kEntriesMax = 8192;
  std::mutex mu_;
  std::map<std::string, T> kept_;
  size_t bytes_ = 0;
};

}  // namespace stepfault::scenarios
