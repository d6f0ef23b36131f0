// EffectStore: an idempotent business effect in SQLite, the generic form of Demo320's
// ApprovedBacklogItems: one row per operation key, inserted with ON CONFLICT DO NOTHING, so a
// replay returns the row the first attempt wrote. Used by the fan-in and JSON scenarios.
//
// Durability: rollback journal with synchronous=EXTRA. (FULL does not fsync the directory after the
// journal is deleted, so a power loss right after COMMIT can roll the transaction back; EXTRA
// closes that window, and the simulated file system reproduces the difference.)
// Probe points effect.commit.before / effect.commit.after surround COMMIT; the second is the
// fail-after-write window. The mutant `without_unique_key` drops the key's uniqueness.
// Thread-safety: one thread per store.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/probe.h"
#include "engine/status.h"

namespace stepfault::scenarios {

// The host hazard every effect-writing scenario can reproduce: the business effect is written
// without its unique operation key, so a replay adds a second effect.
inline constexpr char kHazardEffectWithoutUniqueKey[] = "effect-without-unique-key";
inline constexpr char kHazardEffectWithoutUniqueKeyMeaning[] =
    "the business effect has no unique key";

struct EffectStoreOptions {
  std::string vfs_name;  // "" = SQLite's default VFS
  Probe* probe = nullptr;
  bool without_unique_key = false;  // mutant
  // The file system under the VFS. When set (a host about to act on the effects), Open first makes
  // the database, its journal and their directory durable (MakeInheritedDurable, the recovery rule
  // of engine/env.h). Null: a read-only look (the oracles), which must change nothing.
  Env* durable_env = nullptr;
};

struct EffectRow {
  int64_t id = 0;
  std::string key;
  std::string value;
};

class EffectStore {
 public:
  static Result<std::unique_ptr<EffectStore>> Open(const std::string& db_path,
                                                   EffectStoreOptions options);
  ~EffectStore();

  // Inserts (key, value) unless the key has a row; returns the row for the key.
  Result<EffectRow> Apply(const std::string& key, const std::string& value);
  Result<std::vector<EffectRow>> All();

 private:
  EffectStore(sqlite3* db, EffectStoreOptions options) : db_(db), options_(std::move(options)) {}
  Status Exec(const std::string& sql);
  Status Error(const std::string& what) const;

  sqlite3* db_;
  EffectStoreOptions options_;
};

// Maps a SQLite result code to a Status kind (shared by the scenario stores).
Status SqliteStatus(int rc, const std::string& what, sqlite3* db);

}  // namespace stepfault::scenarios
