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
#include <optional>
#include <string>

#include "engine/env.h"
#include "engine/status.h"
#include "scenarios/kept_by_bytes.h"

namespace stepfault::scenarios {

// The key of the files a look at `db_path` reads: every file of DirName(db_path) whose name begins
// with BaseName(db_path) (FilesKey, kept_by_bytes.h), salted.
Result<std::string> DatabaseFilesKey(Env* env, const std::string& db_path, const std::string& salt);

// Looks counted for tests: how many looks ran (opened SQLite) and how many were answered from the
// kept results, in this process.
struct LookCounts {
  uint64_t ran = 0;
  uint64_t kept_hits = 0;
};
LookCounts LookCountsForTesting();
void CountLook(bool hit);

// The kept looks of one result type (KeptByBytes, kept_by_bytes.h), each counted by its key.
struct LookTag {};
template <typename T>
using KeptLooks = KeptByBytes<T, LookTag>;

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
  if (after.ok() && *after == *before) KeptLooks<T>::Get().Keep(*before, result, 0);
  return result;
}

}  // namespace stepfault::scenarios
