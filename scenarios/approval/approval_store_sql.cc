// SQLite helpers for ApprovalStore (see approval_store_sql.h).
#include "scenarios/approval/approval_store_sql.h"

#include <sqlite3.h>

namespace stepfault::scenarios::sql {

Status ErrorStatus(sqlite3* db, int rc, std::string_view context) {
  const int primary = rc & 0xff;
  std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  std::string message = std::string(context) + ": " + detail + " (" + sqlite3_errstr(rc) +
                        ", SQLite code " + std::to_string(rc) + ")";
  if (rc == SQLITE_READONLY_ROLLBACK) {
    // A hot journal: a transaction was cut short by a crash and only a writer can roll it back.
    return Status::FailedPrecondition(
        "the business database holds a transaction a crash interrupted (a hot journal, "
        "business.db-journal) that awaits rollback; this command is read-only and does not roll "
        "it back: run `stepfault approval resume` with the decision (it rolls the transaction back "
        "and finishes), then ask for the status again");
  }
  switch (primary) {
    case SQLITE_FULL:
      return Status::NoSpace(message + "; free space on the device and retry");
    case SQLITE_IOERR:
      return Status::IOError(message +
                             "; check the device and retry (the journal rolls back a "
                             "half-written transaction on the next open)");
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return Status::IOError(message + "; check that the directory exists and is writable");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(message +
                                "; the business database is damaged: keep the "
                                "directory for inspection and use a fresh one");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Busy(message + "; another connection holds the database, retry later");
    case SQLITE_CONSTRAINT:
      return Status::AlreadyExists(message + "; the row already exists");
    default:
      return Status::Internal(message + "; this is a bug in the approval store");
  }
}

Status Exec(sqlite3* db, const char* sql) {
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus(db, rc, std::string("executing '") + sql + "'");
  return Status::Ok();
}

StatementCache::~StatementCache() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
}

Result<sqlite3_stmt*> StatementCache::Get(std::string_view sql) {
  auto it = statements_.find(sql);
  if (it != statements_.end()) return it->second;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return ErrorStatus(db_, rc, "preparing '" + std::string(sql) + "'");
  }
  ++prepared_;
  statements_.emplace(std::string(sql), stmt);
  return stmt;
}

Statement::~Statement() {
  if (!borrowed_) {
    sqlite3_finalize(stmt_);
  } else if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

Status Statement::Prepare(sqlite3* db, std::string_view sql) {
  SF_CHECK(stmt_ == nullptr);
  db_ = db;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus(db, rc, "preparing '" + std::string(sql) + "'");
  return Status::Ok();
}

Status Statement::Use(StatementCache* cache, std::string_view sql) {
  SF_CHECK(stmt_ == nullptr);
  db_ = cache->db();
  SF_ASSIGN_OR_RETURN(stmt_, cache->Get(sql));
  borrowed_ = true;
  return Status::Ok();
}

Status Statement::BindText(int index, std::string_view text) {
  int rc =
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) return ErrorStatus(db_, rc, "binding parameter " + std::to_string(index));
  return Status::Ok();
}

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return ErrorStatus(db_, rc, std::string("running '") + sqlite3_sql(stmt_) + "'");
}

Status Statement::Run() {
  SF_ASSIGN_OR_RETURN(bool row, Step());
  SF_CHECK(!row);  // Run is only used for statements that return nothing.
  return Status::Ok();
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  int bytes = sqlite3_column_bytes(stmt_, column);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(bytes));
}

std::optional<std::string> Statement::OptionalText(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Text(column);
}

int64_t Statement::Int64(int column) const { return sqlite3_column_int64(stmt_, column); }

Transaction::~Transaction() {
  // Rolling back is the only safe end of an unfinished transaction; its error (e.g. the simulated
  // world refusing I/O after a crash) changes nothing: the journal restores the file on reopen.
  if (open_) (void)Run("ROLLBACK");
}

Status Transaction::Run(const char* sql) {
  if (cache_ == nullptr) return Exec(db_, sql);
  Statement stmt;
  Status s = stmt.Use(cache_, sql);
  if (!s.ok()) return s;
  // The context sqlite3_exec's path names, so a failure reads the same either way.
  int rc = sqlite3_step(stmt.stmt_);
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return Status::Ok();
  return ErrorStatus(db_, rc, std::string("executing '") + sql + "'");
}

Status Transaction::Begin() {
  SF_CHECK(!open_);
  // IMMEDIATE takes the write lock up front, so two stores never deadlock upgrading read locks.
  SF_RETURN_IF_ERROR(Run("BEGIN IMMEDIATE"));
  open_ = true;
  return Status::Ok();
}

Status Transaction::Commit() {
  SF_CHECK(open_);
  Status s = Run("COMMIT");
  // A failed COMMIT may leave the transaction open (e.g. BUSY); the destructor then rolls back.
  if (s.ok() || sqlite3_get_autocommit(db_) != 0) open_ = false;
  return s;
}

}  // namespace stepfault::scenarios::sql
