// SqliteCheckpointStore: checkpoints as rows of one SQLite table.
//
// No topology records (checkpoint_store.h, SupportsRecords() false): every row is self-contained,
// its topology signature inline as in MAF. A records table would be simple, but it would change
// the schema Open verifies (and every existing database), and a second table is a second place
// pruning and the oracles' row reader (scenarios/durable_checkpoints.cc) must know about; the
// quadratic cost records remove matters for the JSON scenarios, which run on the file store.
//
// The database is opened through the VFS named in the options (empty = SQLite's default), so the
// simulated file system can sit underneath without the store knowing. Before the first access the
// store sets `locking_mode=EXCLUSIVE` (WAL then needs no shared-memory methods on a custom VFS),
// `synchronous=FULL`, `cache_spill=OFF` (a commit writes its pages once, at the commit: no journal
// syncs in the middle of a large insert) and the configured journal mode: WAL by default (one sync
// per commit, every byte written twice: the log, then the automatic checkpoint), or a rollback
// journal (DELETE, PERSIST, TRUNCATE: every byte of a new row written once, four syncs per
// commit; under exclusive locking DELETE keeps the journal and invalidates it like PERSIST, and
// TRUNCATE truncates and syncs it). WAL was kept by measurement (docs/performance.md, "The
// SQLite journal mode"). Each row keeps seq (the commit order),
// session_id, checkpoint_id, parent_checkpoint_id, the canonical document and a CRC32C over all of
// them, which Retrieve verifies (kCorruption on mismatch) and Index checks (a row failing it is not
// listed). Commit takes the body's CRC32C from the body's own seal when it is a framed checkpoint
// (engine/stores/committed_crc.h: no second pass over megabytes; a body that disagrees with its
// seal gives a row that fails its check on every read, as the codec would reject it). A commit is
// one transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on any error): it inserts the row with
// the body and the seal as zero-filled values of their final sizes (the record's last two columns,
// so the record carries only their lengths and the btree zero-fills the pages) and then writes
// their bytes into those pages with incremental blob I/O, part after part: CommitParts takes a
// framed checkpoint's parts where they lie (no join, no record copy). Rows written this way hold
// BLOB values in the TEXT-declared body and checksum columns; rows written before hold TEXT; every
// reader takes both as bytes (sqlite3_column_blob), so they read alike. Open verifies
// the table schema and runs PRAGMA quick_check. Only bound parameters reach SQL. Before opening,
// the store fsyncs the database, its WAL and journal and their directory (the recovery rule of
// engine/env.h, MakeInheritedDurable), so nothing it trusts is still only in the page cache of a
// process that died. A second store on the same database is refused with kBusy through a lock on
// <db_path>.lock. SQLite errors map to Status: FULL -> kNoSpace, IOERR* -> kIOError, CORRUPT/NOTADB
// -> kCorruption, BUSY/LOCKED -> kBusy; the message carries SQLite's own. Pruning deletes the
// obsolete rows in one transaction, so a crash leaves all or none deleted. Thread-safety: every
// method is safe for concurrent calls (one mutex around the connection).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/env.h"
#include "engine/store_base.h"

struct sqlite3;
struct sqlite3_stmt;

namespace stepfault {

struct SqliteStoreOptions {
  std::string vfs_name;              // empty: SQLite's default VFS
  std::string journal_mode = "WAL";  // "WAL", "DELETE", "PERSIST" or "TRUNCATE"
  uint64_t seed = 0;
  // PRAGMA page_size for a database this store creates (an existing one keeps its own); 0 keeps
  // SQLite's default (4096). The default here was chosen by measurement (docs/performance.md).
  int page_size = 65536;
  // PRAGMA wal_autocheckpoint in pages (WAL mode); 0 keeps SQLite's default (1,000 pages: 64 MB of
  // 64 KB pages). Measured, not tuned: every byte is copied into the database once whatever the
  // interval (tools/bench modes sqlite_ckpt*).
  int wal_autocheckpoint_pages = 0;
  // HAZARD (#7796): Retrieve prunes the retrieved checkpoint's ancestry before returning.
  bool hazard_prune_on_read = false;
};

class SqliteCheckpointStore final : public PartsWritingCheckpointStore, public RestorationObserver {
 public:
  // Opens or creates the database at `db_path`. kBusy when another store has it open;
  // kInvalidArgument for an unknown journal mode; kCorruption when the file is not a sound
  // database. REQUIRES: env outlives the store.
  static Result<std::unique_ptr<SqliteCheckpointStore>> Open(Env* env, std::string db_path,
                                                             SqliteStoreOptions options = {});
  ~SqliteCheckpointStore() override;

  // Commit and CommitParts: PartsWritingCheckpointStore (engine/store_base.h). A framed
  // checkpoint's parts are written where they lie, without joining them (see the file comment);
  // CommitParts stores exactly the row Commit stores for the joined bytes.
  Result<std::string> Retrieve(const CheckpointInfo& info) override;
  Result<std::vector<StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<CheckpointInfo>& with_parent = std::nullopt) override;
  Status OnRestorationCompleted(const CheckpointInfo& restored) override;

  const std::string& db_path() const { return db_path_; }

  // Every stored row in commit order, read-only, for oracles that must read what is durable
  // without a second hand-written decoder of the table: `intact` says whether the row's seal holds
  // (Index lists only intact rows; Retrieve of another reports kCorruption).
  struct Row {
    uint64_t seq = 0;
    StoreEntry entry;
    std::string document;
    std::string checksum;  // as stored
    bool intact = false;
  };
  Result<std::vector<Row>> Rows();

  // For tests: how many statements this store's connection has prepared. Each SQL text is prepared
  // once per connection (sqlite3_prepare_v3, SQLITE_PREPARE_PERSISTENT) and reset with its
  // bindings cleared before every further use, so repeated calls prepare nothing.
  uint64_t StatementsPreparedForTesting();

 private:
  SqliteCheckpointStore(std::string db_path, SqliteStoreOptions options,
                        std::unique_ptr<FileLock> lock)
      : db_path_(std::move(db_path)), options_(std::move(options)), lock_(std::move(lock)) {}

  Status Initialize();
  // Stores `document` (the parts of a validated body) as one new row in one transaction.
  Result<CheckpointInfo> CommitValidated(const std::string& session_id,
                                         std::span<const std::string_view> document,
                                         const std::optional<CheckpointInfo>& parent) override;
  // Overwrites the zero-filled `column` of row `seq` with `parts`, in order, from offset 0.
  Status WriteColumnLocked(uint64_t seq, const char* column,
                           std::span<const std::string_view> parts);
  Status VerifySchema();
  Status Exec(const char* sql);
  Status Error(int rc, std::string_view what) const;
  // A cached statement for `sql`, reset and with bindings cleared.
  Result<sqlite3_stmt*> Prepare(const char* sql);
  Result<std::vector<StoreEntry>> SessionIndexLocked(const std::string& session_id);
  Result<std::string> RetrieveLocked(const CheckpointInfo& info);
  Status PruneLocked(const CheckpointInfo& restored);

  const std::string db_path_;
  const SqliteStoreOptions options_;
  const std::unique_ptr<FileLock> lock_;

  std::mutex mu_;
  sqlite3* db_ = nullptr;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;  // keyed by SQL text
  uint64_t statements_prepared_ = 0;
  uint64_t next_seq_ = 1;
  bool opening_ = true;  // Initialize has not finished
};

}  // namespace stepfault
