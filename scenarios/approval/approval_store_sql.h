// Small RAII helpers over the SQLite C API for ApprovalStore: a prepared statement with bound
// parameters only, the per-connection cache of prepared statements (prepared once per connection
// with SQLITE_PREPARE_PERSISTENT; a use resets them and clears their bindings when it ends, also
// when a probe unwinds the caller with an exception), a transaction guard that rolls back unless
// committed, and the mapping of SQLite result codes to Status.
// None of these call back into C++ from SQLite, so no exception can cross into SQLite.
// Thread-safety: none; the owning store serialises access to its connection.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace stepfault::scenarios::sql {

// Maps a failed SQLite result code to a Status: FULL -> kNoSpace, IOERR -> kIOError,
// CORRUPT/NOTADB -> kCorruption, BUSY/LOCKED -> kBusy, CONSTRAINT -> kAlreadyExists,
// CANTOPEN/READONLY/PERM -> kIOError, anything else -> kInternal. The message names `context`,
// sqlite3_errmsg and what to do. REQUIRES: rc is not SQLITE_OK/ROW/DONE.
Status ErrorStatus(sqlite3* db, int rc, std::string_view context);

// Runs SQL without parameters or results (pragmas, DDL, BEGIN/COMMIT).
Status Exec(sqlite3* db, const char* sql);

// The statements of one connection, each prepared once (sqlite3_prepare_v3 with
// SQLITE_PREPARE_PERSISTENT) and kept until the cache is destroyed, which must happen before the
// connection is closed. Thread-safety: none (the owner serialises access to the connection).
class StatementCache {
 public:
  explicit StatementCache(sqlite3* db) : db_(db) {}
  ~StatementCache();
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;

  // The prepared statement for `sql`, prepared on first use. REQUIRES: no other use of the same
  // SQL is active (a Statement borrowing it has ended).
  Result<sqlite3_stmt*> Get(std::string_view sql);
  sqlite3* db() const { return db_; }
  // How many statements this connection has prepared (for tests: a repeated call prepares none).
  uint64_t prepared() const { return prepared_; }

 private:
  sqlite3* const db_;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;  // keyed by SQL text
  uint64_t prepared_ = 0;
};

class Statement {
 public:
  Statement() = default;
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // REQUIRES: Prepare or Use called once, before any Bind/Step.
  // A statement of its own, finalized by the destructor.
  Status Prepare(sqlite3* db, std::string_view sql);
  // The cache's statement for `sql`, borrowed: the destructor resets it and clears its bindings.
  Status Use(StatementCache* cache, std::string_view sql);
  // Parameters are 1-based, as in SQLite. The text is copied (SQLITE_TRANSIENT).
  Status BindText(int index, std::string_view text);
  // Returns true for a row, false when done.
  Result<bool> Step();
  // Steps to completion, expecting no rows.
  Status Run();

  bool IsNull(int column) const;
  std::string Text(int column) const;
  std::optional<std::string> OptionalText(int column) const;
  int64_t Int64(int column) const;

 private:
  friend class Transaction;  // steps BEGIN/COMMIT/ROLLBACK with sqlite3_exec's error context

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  bool borrowed_ = false;
};

// BEGIN IMMEDIATE on construction via Begin(); ROLLBACK in the destructor unless Commit() ran.
// With a cache, the three statements are the cache's (prepared once per connection); without, each
// runs through sqlite3_exec. Both give the same SQLite calls below the API and the same errors.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  explicit Transaction(StatementCache* cache) : db_(cache->db()), cache_(cache) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status Begin();
  Status Commit();

 private:
  // Runs `sql` (no parameters, no rows): through the cache when there is one.
  Status Run(const char* sql);

  sqlite3* db_;
  StatementCache* cache_ = nullptr;
  bool open_ = false;
};

}  // namespace stepfault::scenarios::sql
