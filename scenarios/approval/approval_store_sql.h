// Small RAII helpers over the SQLite C API for ApprovalStore: a prepared statement with bound
// parameters only, a transaction guard that rolls back unless committed (also when a probe unwinds
// the caller with an exception), and the mapping of SQLite result codes to Status.
// None of these call back into C++ from SQLite, so no exception can cross into SQLite.
// Thread-safety: none; the owning store serialises access to its connection.
#pragma once

#include <cstdint>
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

class Statement {
 public:
  Statement() = default;
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // REQUIRES: called once, before any Bind/Step.
  Status Prepare(sqlite3* db, std::string_view sql);
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
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE on construction via Begin(); ROLLBACK in the destructor unless Commit() ran.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status Begin();
  Status Commit();

 private:
  sqlite3* db_;
  bool open_ = false;
};

}  // namespace stepfault::scenarios::sql
