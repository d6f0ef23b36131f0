// LookOnce: an oracle's look at a business SQLite database, made on a private copy of its files
// (so a look never changes the world it checks) and once per process for the same bytes.
//
// A look must see the database as a recovering host would: opening it rolls back a hot journal
// left by a death in the middle of a transaction. Done in the world, that rollback (or a missing
// database created by the open) would change the durable state of the system under test: the next
// life would never meet the hot journal itself, so the host's own rollback, and any death during
// it, would go unexplored. So every look runs on a copy: a fresh in-memory SimFs holding, at the
// same paths, the current bytes of the files SQLite can read for the database (the database, its
// journal, a WAL: every file of its directory whose name begins with the database's name) and a
// SQLite VFS over it, both dropped after the look. The world is only read.
//
// The oracles check the world after every life and again on the world a power loss right after it
// would leave, and many plans reach the same worlds, so they look at the same database bytes again
// and again. A look is a pure function of those bytes and of what the caller puts in `salt`, so
// every result is kept, keyed by every byte of them (exact: a hit is a look at identical bytes),
// and a later look at identical bytes returns it without opening SQLite.
// Thread-safety: the process-wide cache of each result type is locked; `look` runs unlocked on its
// own copy (each copy's VFS has a name of its own).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/env.h"
#include "engine/status.h"
#include "scenarios/kept_by_bytes.h"

namespace stepfault::faults {
class SimFs;
}

namespace stepfault::scenarios {

// The key of the files a look at `db_path` reads: every file of DirName(db_path) whose name begins
// with BaseName(db_path) (FilesKey, kept_by_bytes.h), salted.
Result<std::string> DatabaseFilesKey(Env* env, const std::string& db_path, const std::string& salt);

// A private copy of the files a look at `db_path` reads (as DatabaseFilesKey enumerates them), at
// the same paths in a fresh SimFs that is no part of any world, with a SQLite VFS registered over
// it under a name of its own; dropping the copy unregisters the VFS.
// REQUIRES: every connection opened through vfs_name() is closed before the copy is destroyed.
class DatabaseCopy {
 public:
  // Reads the files through `env` (and nothing else); an error if one cannot be read.
  static Result<std::unique_ptr<DatabaseCopy>> Make(Env* env, const std::string& db_path);
  ~DatabaseCopy();
  DatabaseCopy(const DatabaseCopy&) = delete;
  DatabaseCopy& operator=(const DatabaseCopy&) = delete;

  const std::string& vfs_name() const { return vfs_name_; }
  faults::SimFs& fs() { return *fs_; }

 private:
  DatabaseCopy();
  std::unique_ptr<faults::SimFs> fs_;
  std::string vfs_name_;
};

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

// `look(vfs)`, run on a DatabaseCopy of `db_path`'s files (`vfs` is the copy's VFS name, or why
// the copy could not be made; the look opens `db_path` through it), or the kept result of an
// earlier look at the same bytes and salt.
template <typename T>
T LookOnce(Env* env, const std::string& db_path, const std::string& salt,
           const std::function<T(const Result<std::string>& vfs)>& look) {
  Result<std::string> key = DatabaseFilesKey(env, db_path, salt);
  if (key.ok()) {
    if (std::optional<T> kept = KeptLooks<T>::Get().Find(*key)) {
      CountLook(true);
      return *std::move(kept);
    }
  }
  CountLook(false);
  Result<std::unique_ptr<DatabaseCopy>> copy = DatabaseCopy::Make(env, db_path);
  if (!copy.ok()) return look(copy.status());
  T result = look((*copy)->vfs_name());
  if (key.ok()) KeptLooks<T>::Get().Keep(*key, result, 0);
  return result;
}

}  // namespace stepfault::scenarios
