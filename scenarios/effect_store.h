// EffectStore: an idempotent business effect in SQLite, the generic form of Demo320's
// ApprovedBacklogItems: one row per operation key, inserted with ON CONFLICT DO NOTHING, so a
// replay returns the row the first attempt wrote. Used by the fan-in and JSON scenarios.
//
// Durability: rollback journal with synchronous=EXTRA. (FULL does not fsync the directory after the
// journal is deleted, so a power loss right after COMMIT can roll the transaction back; EXTRA
// closes that window, and the simulated file system reproduces the difference.)
// Probe points effect.commit.before / effect.commit.after surround COMMIT; the second is the
// fail-after-write window. The mutant `without_unique_key` drops the key's uniqueness.
// One store is one connection, opened once per life; each statement (BEGIN/COMMIT/ROLLBACK
// included) is prepared once per connection (SQLITE_PREPARE_PERSISTENT) and reset with its
// bindings cleared around every use. Destroying the store (also while a simulated crash unwinds the
// life) finalizes them and closes the connection.
// Thread-safety: one thread per store.
#pragma once

#include <sqlite3.h>

#include <map>
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

  // For tests: how many statements this store's connection has prepared (repeated calls: none).
  uint64_t StatementsPreparedForTesting() const { return prepared_; }

 private:
  EffectStore(sqlite3* db, EffectStoreOptions options) : db_(db), options_(std::move(options)) {}
  Status Exec(const std::string& sql);
  // The connection's statement for `sql`, prepared on first use, reset and with bindings cleared.
  // SQLite's result code when it cannot be prepared.
  int Statement(const char* sql, sqlite3_stmt** stmt);
  // Runs a cached statement without parameters or rows (BEGIN/COMMIT/ROLLBACK), failing as Exec.
  Status Run(const char* sql);

  sqlite3* db_;
  EffectStoreOptions options_;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;  // keyed by SQL text
  uint64_t prepared_ = 0;
};

// Maps a SQLite result code to a Status kind (shared by the scenario stores).
Status SqliteStatus(int rc, const std::string& what, sqlite3* db);

}  // namespace stepfault::scenarios
