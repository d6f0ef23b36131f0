// LookOnce: an oracle's look at a business SQLite database, made once per process for the same
// bytes.
//
// The oracles check the world after every life and again on the world a power loss right after it
// would leave, and many plans reach the same worlds, so they looked at the same database bytes
// again and again, each time opening a connection, configuring it, parsing the schema and preparing
// every statement. A look is a pure function of the files SQLite can read for the database (the
// database, its journal, a WAL: every file of its directory whose name begins with the database's
// name) and of what the caller puts in `salt`; so the result of a look that changed none of those
// bytes is kept, keyed by every byte of them (exact: a hit is a look at identical bytes), and a
// later look at identical bytes returns it without opening SQLite. A look that changed the files
// (opening the database rolled back a hot journal, or created its schema) is not kept, so a later
// look at the old bytes runs again and changes the world exactly as it did before.
// Thread-safety: the process-wide cache of each result type is locked; `look` runs unlocked.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "engine/env.h"
#include "engine/status.h"

namespace stepfault::scenarios {

// The key of the files a look at `db_path` reads: the salt, then every file of DirName(db_path)
// whose name begins with BaseName(db_path), in byte order, with its bytes (length-prefixed, so no
// two sets of files share a key).
Result<std::string> DatabaseFilesKey(Env* env, const std::string& db_path, const std::string& salt);

// Looks counted for tests: how many looks ran (opened SQLite) and how many were answered from the
// kept results, in this process.
struct LookCounts {
  uint64_t ran = 0;
  uint64_t kept_hits = 0;
};
LookCounts LookCountsForTesting();
void CountLook(bool hit);

// The process-wide kept looks of one result type. Bounded: cleared when the keys kept pass
// kBytesMax.
template <typename T>
class KeptLooks {
 public:
  static KeptLooks& Get() {
    static KeptLooks* kept = new KeptLooks();  // never destroyed: forked workers exit at will
    return *kept;
  }
  std::optional<T> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = looks_.find(key);
    if (it == looks_.end()) return std::nullopt;
    return it->second;
  }
  void Keep(const std::string& key, const T& look) {
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes_ + key.size() > kBytesMax) {
      looks_.clear();
      bytes_ = 0;
    }
    if (looks_.emplace(key, look).second) bytes_ += key.size();
  }

 private:
  static constexpr size_t kBytesMax = size_t{32} << 20;
  std::mutex mu_;
  std::map<std::string, T> looks_;
  size_t bytes_ = 0;
};

// `look()` (which opens the database at `db_path` through `env`'s world and reads it), or the kept
// result of an earlier look at the same bytes and salt that changed nothing.
template <typename T>
T LookOnce(Env* env, const std::string& db_path, const std::string& salt,
           const std::function<T()>& look) {
  Result<std::string> before = DatabaseFilesKey(env, db_path, salt);
  if (before.ok()) {
    if (std::optional<T> kept = KeptLooks<T>::Get().Find(*before)) {
      CountLook(true);
      return *std::move(kept);
    }
  }
  CountLook(false);
  T result = look();
  if (!before.ok()) return result;
  Result<std::string> after = DatabaseFilesKey(env, db_path, salt);
  if (after.ok() && *after == *before) KeptLooks<T>::Get().Keep(*before, result);
  return result;
}

}  // namespace stepfault::scenarios
