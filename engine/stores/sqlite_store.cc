// SqliteCheckpointStore: connection setup, the cached statements and the row checksum.
#include "engine/stores/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"
#include "engine/store_base.h"
#include "engine/store_prune.h"
#include "engine/stores/committed_crc.h"

namespace stepfault {
namespace {

constexpr const char* kCreateTable =
    "CREATE TABLE IF NOT EXISTS checkpoints ("
    " seq INTEGER PRIMARY KEY,"
    " session_id TEXT NOT NULL,"
    " checkpoint_id TEXT NOT NULL,"
    " parent_checkpoint_id TEXT NULL,"
    " body TEXT NOT NULL,"
    " checksum TEXT NOT NULL,"
    " UNIQUE(session_id, checkpoint_id))";
constexpr const char* kInsert =
    "INSERT INTO checkpoints(seq, session_id, checkpoint_id, parent_checkpoint_id, body, checksum)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6)";
constexpr const char* kSelectOne =
    "SELECT seq, parent_checkpoint_id, body, checksum FROM checkpoints"
    " WHERE session_id = ?1 AND checkpoint_id = ?2";
constexpr const char* kSelectSession =
    "SELECT seq, checkpoint_id, parent_checkpoint_id, body, checksum FROM checkpoints"
    " WHERE session_id = ?1 ORDER BY seq";
constexpr const char* kSelectAll =
    "SELECT seq, session_id, checkpoint_id, parent_checkpoint_id, body, checksum FROM checkpoints"
    " ORDER BY seq";
constexpr const char* kSelectColumns =
    "SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || pk"
    " FROM pragma_table_info('checkpoints') ORDER BY cid";
constexpr const char* kDelete =
    "DELETE FROM checkpoints WHERE session_id = ?1 AND checkpoint_id = ?2";

// The seal of one row: every column but the checksum itself. Version 2 ("row2:crc32c:…", written
// now) is the CRC32C of the length-prefixed metadata followed by the body bytes as stored (a read
// computes it in one pass; a commit combines the metadata's CRC with the body's, taken from the
// body's own seal when it is a framed checkpoint); version 1 (a bare "crc32c:…", still verified)
// was the CRC of a JSON array of the columns, which escaped the whole body on every check.
constexpr std::string_view kRowSeal2 = "row2:";

std::string RowChecksumV1(int64_t seq, const std::string& session_id,
                          const std::string& checkpoint_id,
                          const std::optional<std::string>& parent, std::string_view body) {
  nlohmann::json row = nlohmann::json::array(
      {seq, session_id, checkpoint_id, parent ? nlohmann::json(*parent) : nlohmann::json(nullptr),
       std::string(body)});
  return Crc32cTag(row.dump());
}

// The version-2 seal from the body's CRC32C (so a commit can take it from the body's own seal).
std::string RowChecksumOfBodyCrc(int64_t seq, const std::string& session_id,
                                 const std::string& checkpoint_id,
                                 const std::optional<std::string>& parent, size_t body_size,
                                 uint32_t body_crc) {
  std::string meta;
  auto field = [&](std::string_view f) {
    meta += std::to_string(f.size());
    meta += ':';
    meta += f;
  };
  field(std::to_string(seq));
  field(session_id);
  field(checkpoint_id);
  field(parent ? "1" + *parent : "0");
  field(std::to_string(body_size));
  // Crc32c(meta + body), without a pass over the body.
  return std::string(kRowSeal2) + Crc32cTagOf(Crc32cCombine(Crc32c(meta), body_crc, body_size));
}

std::string RowChecksum(int64_t seq, const std::string& session_id,
                        const std::string& checkpoint_id, const std::optional<std::string>& parent,
                        std::string_view body) {
  return RowChecksumOfBodyCrc(seq, session_id, checkpoint_id, parent, body.size(), Crc32c(body));
}

// The seal `stored` should be, computed the way it was written.
std::string ExpectedChecksum(std::string_view stored, int64_t seq, const std::string& session_id,
                             const std::string& checkpoint_id,
                             const std::optional<std::string>& parent, std::string_view body) {
  return stored.starts_with(kRowSeal2)
             ? RowChecksum(seq, session_id, checkpoint_id, parent, body)
             : RowChecksumV1(seq, session_id, checkpoint_id, parent, body);
}

// The column's bytes in place (valid until the statement steps or resets), a TEXT value (rows
// written by Commit before the blob path) and a BLOB value (rows written since) alike: the body
// and the checksum are read as bytes, which converts neither (reading a BLOB as text would copy
// it to add a terminator).
std::string_view ColumnBytes(sqlite3_stmt* stmt, int column) {
  const void* bytes = sqlite3_column_blob(stmt, column);
  if (bytes == nullptr) return {};
  return std::string_view(static_cast<const char*>(bytes),
                          static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
}

std::string ColumnText(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
}

std::optional<std::string> ColumnOptionalText(sqlite3_stmt* stmt, int column) {
  if (sqlite3_column_type(stmt, column) == SQLITE_NULL) return std::nullopt;
  return ColumnText(stmt, column);
}

// SQLITE_STATIC: SQLite reads the caller's bytes in place, no copy. Every statement here is
// stepped and reset (ResetOnExit) before the bound buffer goes out of scope.
int BindText(sqlite3_stmt* stmt, int index, std::string_view text) {
  return sqlite3_bind_text64(stmt, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8);
}

// Resets a cached statement when the call that used it returns.
struct ResetOnExit {
  sqlite3_stmt* stmt;
  ~ResetOnExit() { sqlite3_reset(stmt); }
};

}  // namespace

Result<std::unique_ptr<SqliteCheckpointStore>> SqliteCheckpointStore::Open(
    Env* env, std::string db_path, SqliteStoreOptions options) {
  std::string mode = options.journal_mode;
  std::transform(mode.begin(), mode.end(), mode.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (mode != "WAL" && mode != "DELETE" && mode != "PERSIST" && mode != "TRUNCATE") {
    return Status::InvalidArgument("journal_mode '" + options.journal_mode +
                                   "' is not supported; use \"WAL\", \"DELETE\", \"PERSIST\" or "
                                   "\"TRUNCATE\"");
  }
  options.journal_mode = mode;
  auto lock = env->LockFile(db_path + ".lock");
  if (!lock.ok()) {
    if (lock.status().code() == StatusCode::kBusy) {
      return Status::Busy("checkpoint database " + db_path +
                          " is in use by another store; close that store (or stop the process "
                          "holding " +
                          db_path + ".lock) before opening it again");
    }
    return lock.status().WithContext("locking checkpoint database " + db_path);
  }
  // The recovery rule (engine/env.h): what a dead process left in the database, its WAL or its
  // journal may be only in the page cache, and a journal deletion may not be durable yet (SQLite
  // would then roll a transaction back after a power loss that we already trusted).
  const std::string base = BaseName(db_path);
  SF_RETURN_IF_ERROR(
      MakeInheritedDurable(env, DirName(db_path), {base, base + "-wal", base + "-journal"}));
  std::unique_ptr<SqliteCheckpointStore> store(
      new SqliteCheckpointStore(std::move(db_path), std::move(options), std::move(lock).value()));
  SF_RETURN_IF_ERROR(store->Initialize());
  return store;
}

SqliteCheckpointStore::~SqliteCheckpointStore() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  if (db_ != nullptr) sqlite3_close(db_);
}

Status SqliteCheckpointStore::Error(int rc, std::string_view what) const {
  std::string message = std::string(what) + " on " + db_path_ + ": " +
                        (db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)) +
                        " (sqlite code " + std::to_string(rc) + ")";
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return Status::NoSpace(message);
    case SQLITE_IOERR:
      return Status::IOError(message);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Busy(message);
    case SQLITE_CONSTRAINT:
      return Status::AlreadyExists(message);
    case SQLITE_CANTOPEN:
      return Status::IOError(message);
    default:
      // While opening, a plain SQL error ("unsupported file format", a mangled schema) means the
      // file is damaged or foreign, not that our statements are wrong.
      if (opening_) {
        return Status::Corruption(message + "; the database is damaged or not a checkpoint store");
      }
      return Status::Internal(message);
  }
}

Status SqliteCheckpointStore::Exec(const char* sql) {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : Error(rc, sql);
}

Result<sqlite3_stmt*> SqliteCheckpointStore::Prepare(const char* sql) {
  auto it = statements_.find(std::string_view(sql));
  if (it != statements_.end()) {
    sqlite3_reset(it->second);
    sqlite3_clear_bindings(it->second);
    return it->second;
  }
  sqlite3_stmt* stmt = nullptr;
  // Prepared once per connection and kept: PERSISTENT tells SQLite so (no lookaside memory).
  int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, "preparing a statement");
  }
  ++statements_prepared_;
  statements_.emplace(sql, stmt);
  return stmt;
}

Status SqliteCheckpointStore::Initialize() {
  if (!options_.vfs_name.empty() && sqlite3_vfs_find(options_.vfs_name.c_str()) == nullptr) {
    return Status::InvalidArgument("no SQLite VFS named '" + options_.vfs_name +
                                   "' is registered; register it before opening " + db_path_);
  }
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(db_path_.c_str(), &db_, flags,
                           options_.vfs_name.empty() ? nullptr : options_.vfs_name.c_str());
  if (rc != SQLITE_OK) return Error(rc, "opening");
  sqlite3_extended_result_codes(db_, 1);
  if (options_.page_size != 0) {
    // Only takes effect on a database with no pages yet, so it must come before WAL is set.
    const std::string page = "PRAGMA page_size=" + std::to_string(options_.page_size);
    SF_RETURN_IF_ERROR(Exec(page.c_str()));
  }
  // Exclusive locking first: after it WAL keeps its index in heap memory, not in a -shm file.
  SF_RETURN_IF_ERROR(Exec("PRAGMA locking_mode=EXCLUSIVE"));
  const std::string journal = "PRAGMA journal_mode=" + options_.journal_mode;  // allow-listed
  SF_ASSIGN_OR_RETURN(sqlite3_stmt * mode, Prepare(journal.c_str()));
  {
    ResetOnExit reset{mode};
    rc = sqlite3_step(mode);
    if (rc != SQLITE_ROW) return Error(rc, "setting the journal mode");
    std::string actual = ColumnText(mode, 0);
    std::transform(actual.begin(), actual.end(), actual.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (actual != options_.journal_mode) {
      return Status::FailedPrecondition("journal_mode " + options_.journal_mode + " refused on " +
                                        db_path_ + " (got " + actual +
                                        "); does the VFS support it?");
    }
    // The row names the new mode before the switch has committed: on a new database the switch to
    // WAL is a rollback-journal transaction that writes the header, and an I/O error in its commit
    // surfaces only when the statement finishes. Ignoring it (as a reset does) left the store in
    // rollback-journal mode while it believed it was in WAL, and with synchronous=FULL that mode
    // deletes its journal without a directory sync: a power loss could then roll back a commit
    // already reported durable (found by the committed-durability oracle, INV-ANCESTRY).
    rc = sqlite3_step(mode);
    if (rc != SQLITE_DONE) return Error(rc, "setting the journal mode");
  }
  SF_RETURN_IF_ERROR(Exec("PRAGMA synchronous=FULL"));
  // A checkpoint larger than the page cache (2,000 KiB by default: 31 pages of 64 KB) made SQLite
  // spill dirty pages in the middle of the insert; in a rollback-journal mode each spill syncs the
  // journal (twice under FULL) before it may overwrite the database, so a 2 MB commit synced six
  // times instead of four (strace). Without spilling, the cache holds the transaction's pages
  // until the commit (about the size of the row, which the caller holds in memory anyway).
  SF_RETURN_IF_ERROR(Exec("PRAGMA cache_spill=OFF"));
  if (options_.wal_autocheckpoint_pages > 0) {
    const std::string pages =
        "PRAGMA wal_autocheckpoint=" + std::to_string(options_.wal_autocheckpoint_pages);
    SF_RETURN_IF_ERROR(Exec(pages.c_str()));
  }
  SF_RETURN_IF_ERROR(Exec(kCreateTable));
  SF_RETURN_IF_ERROR(VerifySchema());
  SF_ASSIGN_OR_RETURN(sqlite3_stmt * check, Prepare("PRAGMA quick_check"));
  {
    ResetOnExit reset{check};
    rc = sqlite3_step(check);
    if (rc != SQLITE_ROW) return Error(rc, "checking the database");
    std::string verdict = ColumnText(check, 0);
    if (verdict != "ok") {
      return Status::Corruption("checkpoint database " + db_path_ + " failed quick_check: " +
                                verdict + "; restore it from a backup or remove it");
    }
  }
  SF_ASSIGN_OR_RETURN(sqlite3_stmt * max_seq,
                      Prepare("SELECT COALESCE(MAX(seq), 0) FROM checkpoints"));
  ResetOnExit reset{max_seq};
  rc = sqlite3_step(max_seq);
  if (rc != SQLITE_ROW) return Error(rc, "reading the last sequence number");
  next_seq_ = static_cast<uint64_t>(sqlite3_column_int64(max_seq, 0)) + 1;
  opening_ = false;
  return Status::Ok();
}

Status SqliteCheckpointStore::VerifySchema() {
  // A damaged schema page can rename a column; catch it here rather than as odd SQL errors later.
  static const std::vector<std::string> kExpected = {
      "seq INTEGER 0 1",        "session_id TEXT 1 0",
      "checkpoint_id TEXT 1 0", "parent_checkpoint_id TEXT 0 0",
      "body TEXT 1 0",          "checksum TEXT 1 0"};
  SF_ASSIGN_OR_RETURN(sqlite3_stmt * columns, Prepare(kSelectColumns));
  ResetOnExit reset{columns};
  std::vector<std::string> actual;
  for (size_t rows = 0; rows <= kExpected.size(); ++rows) {
    int rc = sqlite3_step(columns);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return Error(rc, "reading the table schema");
    actual.push_back(ColumnText(columns, 0));
  }
  if (actual != kExpected) {
    return Status::Corruption("checkpoint database " + db_path_ +
                              " has an unexpected checkpoints table schema (damaged, or not a "
                              "Stepfault checkpoint database)");
  }
  return Status::Ok();
}

Result<CheckpointInfo> SqliteCheckpointStore::CommitValidated(
    const std::string& session_id, std::span<const std::string_view> document,
    const std::optional<CheckpointInfo>& parent) {
  size_t body_size = 0;
  for (std::string_view part : document) body_size += part.size();
  // The body's CRC from its own seal when it is a framed checkpoint (committed_crc.h); reads
  // verify the row against the bytes themselves.
  const uint32_t body_crc = Crc32cOfCommittedParts(document);
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t seq = next_seq_++;
  CheckpointInfo info{session_id, StoreCheckpointId(options_.seed, session_id, seq)};
  std::optional<std::string> parent_id;
  if (parent) parent_id = parent->checkpoint_id;
  const std::string checksum = RowChecksumOfBodyCrc(
      static_cast<int64_t>(seq), session_id, info.checkpoint_id, parent_id, body_size, body_crc);
  const std::string what = "committing checkpoint " + info.ToString();
  int rc = sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, what);
  Status s = [&]() -> Status {
    SF_ASSIGN_OR_RETURN(sqlite3_stmt * insert, Prepare(kInsert));
    ResetOnExit reset{insert};
    sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(seq));
    BindText(insert, 2, session_id);
    BindText(insert, 3, info.checkpoint_id);
    if (parent_id) {
      BindText(insert, 4, *parent_id);
    } else {
      sqlite3_bind_null(insert, 4);
    }
    // Zero-filled values of the final sizes: they are the record's last two columns, so the
    // record carries only their lengths and the btree zero-fills the pages (a zeroblob followed
    // by a non-empty column would be expanded in memory instead). Their bytes are written into
    // those pages below; both become BLOB values (docs/stores.md, "SQLite store rows").
    int step = sqlite3_bind_zeroblob64(insert, 5, body_size);  // SQLITE_TOOBIG past the limit
    if (step == SQLITE_OK) step = sqlite3_bind_zeroblob64(insert, 6, checksum.size());
    if (step != SQLITE_OK) return Error(step, what);
    step = sqlite3_step(insert);
    if (step != SQLITE_DONE) return Error(step, what);
    return Status::Ok();
  }();
  if (s.ok()) s = WriteColumnLocked(seq, "body", document);
  if (s.ok()) {
    const std::string_view seal = checksum;
    s = WriteColumnLocked(seq, "checksum", std::span<const std::string_view>(&seal, 1));
  }
  if (s.ok()) {
    rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) s = Error(rc, what);
  }
  if (!s.ok()) {
    // Nothing of the row stays: SQLite may have rolled back already (an I/O error in COMMIT).
    if (!sqlite3_get_autocommit(db_)) {
      (void)sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    return s;
  }
  return info;
}

Status SqliteCheckpointStore::WriteColumnLocked(uint64_t seq, const char* column,
                                                std::span<const std::string_view> parts) {
  const std::string what = std::string("writing the ") + column + " of row " + std::to_string(seq);
  sqlite3_blob* blob = nullptr;
  int rc = sqlite3_blob_open(db_, "main", "checkpoints", column, static_cast<sqlite3_int64>(seq),
                             /*flags=*/1, &blob);
  if (rc != SQLITE_OK) {
    Status s = Error(rc, what);
    sqlite3_blob_close(blob);  // a handle is returned on some errors; closing nullptr is a no-op
    return s;
  }
  int offset = 0;
  for (std::string_view part : parts) {
    if (part.empty()) continue;
    rc = sqlite3_blob_write(blob, part.data(), static_cast<int>(part.size()), offset);
    if (rc != SQLITE_OK) break;
    offset += static_cast<int>(part.size());
  }
  Status s = rc == SQLITE_OK ? Status::Ok() : Error(rc, what);
  // Closing a handle that wrote commits nothing (the transaction is still open), but its error
  // is the write's error.
  rc = sqlite3_blob_close(blob);
  if (s.ok() && rc != SQLITE_OK) s = Error(rc, what);
  return s;
}

Result<std::string> SqliteCheckpointStore::Retrieve(const CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  SF_ASSIGN_OR_RETURN(std::string body, RetrieveLocked(info));
  if (options_.hazard_prune_on_read) SF_RETURN_IF_ERROR(PruneLocked(info));
  return body;
}

Result<std::string> SqliteCheckpointStore::RetrieveLocked(const CheckpointInfo& info) {
  std::string body;
  {
    SF_ASSIGN_OR_RETURN(sqlite3_stmt * select, Prepare(kSelectOne));
    ResetOnExit reset{select};
    BindText(select, 1, info.session_id);
    BindText(select, 2, info.checkpoint_id);
    int rc = sqlite3_step(select);
    if (rc == SQLITE_DONE) {
      return Status::NotFound("no checkpoint " + info.ToString() + " in " + db_path_);
    }
    if (rc != SQLITE_ROW) return Error(rc, "retrieving checkpoint " + info.ToString());
    const int64_t seq = sqlite3_column_int64(select, 0);
    std::optional<std::string> parent = ColumnOptionalText(select, 1);
    body = std::string(ColumnBytes(select, 2));
    const std::string stored(ColumnBytes(select, 3));
    const std::string actual =
        ExpectedChecksum(stored, seq, info.session_id, info.checkpoint_id, parent, body);
    if (stored != actual) {
      return Status::Corruption("checkpoint " + info.ToString() + " in " + db_path_ +
                                " fails its checksum (stored " + stored + ", computed " + actual +
                                ")");
    }
  }
  return body;
}

Result<std::vector<StoreEntry>> SqliteCheckpointStore::SessionIndexLocked(
    const std::string& session_id) {
  SF_ASSIGN_OR_RETURN(sqlite3_stmt * select, Prepare(kSelectSession));
  ResetOnExit reset{select};
  BindText(select, 1, session_id);
  std::vector<StoreEntry> index;
  for (;;) {
    int rc = sqlite3_step(select);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return Error(rc, "listing session '" + session_id + "'");
    StoreEntry e;
    e.info = CheckpointInfo{session_id, ColumnText(select, 1)};
    e.parent_checkpoint_id = ColumnOptionalText(select, 2);
    const std::string stored(ColumnBytes(select, 4));
    const std::string actual =
        ExpectedChecksum(stored, sqlite3_column_int64(select, 0), session_id, e.info.checkpoint_id,
                         e.parent_checkpoint_id, ColumnBytes(select, 3));
    // A row that fails its seal is never listed (its metadata may be the damaged part); Retrieve
    // of it reports kCorruption.
    if (actual != stored) continue;
    index.push_back(std::move(e));
  }
  return index;
}

Result<std::vector<StoreEntry>> SqliteCheckpointStore::Index(
    const std::string& session_id, const std::optional<CheckpointInfo>& with_parent) {
  std::lock_guard<std::mutex> lock(mu_);
  SF_ASSIGN_OR_RETURN(std::vector<StoreEntry> index, SessionIndexLocked(session_id));
  return FilterByParent(std::move(index), with_parent);
}

Status SqliteCheckpointStore::OnRestorationCompleted(const CheckpointInfo& restored) {
  std::lock_guard<std::mutex> lock(mu_);
  return PruneLocked(restored);
}

Status SqliteCheckpointStore::PruneLocked(const CheckpointInfo& restored) {
  SF_ASSIGN_OR_RETURN(std::vector<StoreEntry> index, SessionIndexLocked(restored.session_id));
  // Incremental checkpoints: a base a kept delta needs is never a victim.
  const DeltaBaseOf base_of =
      DeltaBaseFromBytes([this](const CheckpointInfo& info) { return RetrieveLocked(info); });
  if (PrunableBeforeRestored(index, restored, base_of).empty()) return Status::Ok();
  // One transaction: a crash or error deletes all obsolete rows or none.
  SF_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Status s = PruneObsolete(
      index, restored,
      [&](const CheckpointInfo& victim) -> Status {
        SF_ASSIGN_OR_RETURN(sqlite3_stmt * del, Prepare(kDelete));
        ResetOnExit reset{del};
        BindText(del, 1, victim.session_id);
        BindText(del, 2, victim.checkpoint_id);
        int rc = sqlite3_step(del);
        return rc == SQLITE_DONE ? Status::Ok() : Error(rc, "deleting " + victim.ToString());
      },
      nullptr, base_of);
  if (s.ok()) s = Exec("COMMIT");
  if (!s.ok()) {
    if (!sqlite3_get_autocommit(db_)) (void)Exec("ROLLBACK");
    return s;
  }
  return Status::Ok();
}

uint64_t SqliteCheckpointStore::StatementsPreparedForTesting() {
  std::lock_guard<std::mutex> lock(mu_);
  return statements_prepared_;
}

Result<std::vector<SqliteCheckpointStore::Row>> SqliteCheckpointStore::Rows() {
  std::lock_guard<std::mutex> lock(mu_);
  SF_ASSIGN_OR_RETURN(sqlite3_stmt * select, Prepare(kSelectAll));
  ResetOnExit reset{select};
  std::vector<Row> rows;
  for (;;) {
    const int rc = sqlite3_step(select);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return Error(rc, "reading every row");
    Row row;
    row.seq = static_cast<uint64_t>(sqlite3_column_int64(select, 0));
    row.entry.info = CheckpointInfo{ColumnText(select, 1), ColumnText(select, 2)};
    row.entry.parent_checkpoint_id = ColumnOptionalText(select, 3);
    row.document = std::string(ColumnBytes(select, 4));
    row.checksum = std::string(ColumnBytes(select, 5));
    // The seal the row was written with (a version 1 row is as intact as Index lists it).
    row.intact = ExpectedChecksum(row.checksum, sqlite3_column_int64(select, 0),
                                  row.entry.info.session_id, row.entry.info.checkpoint_id,
                                  row.entry.parent_checkpoint_id, row.document) == row.checksum;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace stepfault
