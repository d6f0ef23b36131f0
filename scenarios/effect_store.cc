// EffectStore: schema, the idempotent insert, reads.
#include "scenarios/effect_store.h"

#include "engine/probe_points.h"

namespace stepfault::scenarios {

Status SqliteStatus(int rc, const std::string& what, sqlite3* db) {
  std::string msg = what + ": " + (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return Status::NoSpace(msg);
    case SQLITE_IOERR:
      return Status::IOError(msg);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Busy(msg);
    case SQLITE_CONSTRAINT:
      return Status::AlreadyExists(msg);
    case SQLITE_CANTOPEN:
      return Status::IOError(msg);
    default:
      return Status::Internal(msg);
  }
}

Result<std::unique_ptr<EffectStore>> EffectStore::Open(const std::string& db_path,
                                                       EffectStoreOptions options) {
  if (options.durable_env != nullptr) {
    const std::string base = BaseName(db_path);
    SF_RETURN_IF_ERROR(
        MakeInheritedDurable(options.durable_env, DirName(db_path), {base, base + "-journal"}));
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                           options.vfs_name.empty() ? nullptr : options.vfs_name.c_str());
  if (rc != SQLITE_OK) {
    Status s = SqliteStatus(rc, "opening effect database " + db_path, db);
    sqlite3_close(db);
    return s;
  }
  std::unique_ptr<EffectStore> store(new EffectStore(db, std::move(options)));
  SF_RETURN_IF_ERROR(store->Exec("PRAGMA journal_mode=DELETE"));
  SF_RETURN_IF_ERROR(store->Exec("PRAGMA synchronous=EXTRA"));
  const std::string key_column =
      store->options_.without_unique_key ? "Key TEXT NOT NULL" : "Key TEXT NOT NULL UNIQUE";
  SF_RETURN_IF_ERROR(
      store->Exec("CREATE TABLE IF NOT EXISTS Effects(Id INTEGER PRIMARY KEY "
                  "AUTOINCREMENT, " +
                  key_column + ", Value TEXT NOT NULL)"));
  return store;
}

EffectStore::~EffectStore() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

int EffectStore::Statement(const char* sql, sqlite3_stmt** stmt) {
  auto it = statements_.find(std::string_view(sql));
  if (it != statements_.end()) {
    sqlite3_reset(it->second);
    sqlite3_clear_bindings(it->second);
    *stmt = it->second;
    return SQLITE_OK;
  }
  int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(*stmt);
    *stmt = nullptr;
    return rc;
  }
  ++prepared_;
  statements_.emplace(sql, *stmt);
  return SQLITE_OK;
}

Status EffectStore::Run(const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = Statement(sql, &stmt);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) rc = SQLITE_OK;
  }
  // The error is read before the reset, as sqlite3_exec reports it.
  Status s = rc == SQLITE_OK ? Status::Ok()
                             : SqliteStatus(rc, "executing '" + std::string(sql) + "'", db_);
  if (stmt != nullptr) sqlite3_reset(stmt);
  return s;
}

Status EffectStore::Exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) return SqliteStatus(rc, "executing '" + sql + "'", db_);
  return Status::Ok();
}

Result<EffectRow> EffectStore::Apply(const std::string& key, const std::string& value) {
  Probe* probe = options_.probe != nullptr ? options_.probe : NullProbe();
  SF_RETURN_IF_ERROR(Run("BEGIN IMMEDIATE"));
  const char* sql =
      options_.without_unique_key
          ? "INSERT INTO Effects(Key, Value) VALUES(?1, ?2)"
          : "INSERT INTO Effects(Key, Value) VALUES(?1, ?2) ON CONFLICT(Key) DO NOTHING";
  sqlite3_stmt* stmt = nullptr;
  int rc = Statement(sql, &stmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(stmt, 1, key.c_str(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 2, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK) {
    Status s = SqliteStatus(rc, "inserting effect " + key, db_);
    if (stmt != nullptr) sqlite3_reset(stmt);
    (void)Run("ROLLBACK");
    return s;
  }
  sqlite3_reset(stmt);
  probe->Hit(points::kEffectCommitBefore);
  Status commit = Run("COMMIT");
  if (!commit.ok()) {
    (void)Run("ROLLBACK");
    return commit;
  }
  probe->Hit(points::kEffectCommitAfter);
  SF_ASSIGN_OR_RETURN(std::vector<EffectRow> rows, All());
  for (const EffectRow& r : rows) {
    if (r.key == key) return r;
  }
  return Status::Internal("effect " + key + " vanished after its commit");
}

Result<std::vector<EffectRow>> EffectStore::All() {
  sqlite3_stmt* stmt = nullptr;
  int rc = Statement("SELECT Id, Key, Value FROM Effects ORDER BY Id", &stmt);
  if (rc != SQLITE_OK) return SqliteStatus(rc, "reading effects", db_);
  std::vector<EffectRow> rows;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    EffectRow r;
    r.id = sqlite3_column_int64(stmt, 0);
    auto text = [&](int col) {
      const unsigned char* t = sqlite3_column_text(stmt, col);
      return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
    };
    r.key = text(1);
    r.value = text(2);
    rows.push_back(std::move(r));
  }
  Status s = rc == SQLITE_DONE ? Status::Ok() : SqliteStatus(rc, "reading effects", db_);
  sqlite3_reset(stmt);
  if (!s.ok()) return s;
  return rows;
}

}  // namespace stepfault::scenarios
