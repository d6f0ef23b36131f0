// ApprovalStore (see approval_store.h): schema, proposal binding, decisions and the idempotent
// effect transaction of Demo320.
#include "scenarios/approval/approval_store.h"

#include <sqlite3.h>

#include <atomic>
#include <utility>

#include "engine/probe_points.h"
#include "scenarios/approval/approval_store_sql.h"

namespace stepfault::scenarios {
namespace {

using sql::Statement;
using sql::Transaction;

// SQLite's own bound on waiting for another connection's lock (it sleeps through the VFS).
constexpr int kBusyTimeoutMs = 5000;

constexpr const char* kCreateApprovals =
    "CREATE TABLE IF NOT EXISTS Approvals("
    "OperationId TEXT PRIMARY KEY, Draft TEXT NOT NULL, "
    "Status TEXT NOT NULL CHECK(Status IN ('Waiting','Approved','Rejected','Completed')), "
    "Decision TEXT NULL, Comment TEXT NULL)";
constexpr const char* kCreateItems =
    "CREATE TABLE IF NOT EXISTS ApprovedBacklogItems("
    "ItemId INTEGER PRIMARY KEY AUTOINCREMENT, OperationId TEXT NOT NULL UNIQUE, "
    "Draft TEXT NOT NULL, CreatedUtc TEXT NOT NULL)";
// Mutant schema: the same table without UNIQUE(OperationId).
constexpr const char* kCreateItemsNoUnique =
    "CREATE TABLE IF NOT EXISTS ApprovedBacklogItems("
    "ItemId INTEGER PRIMARY KEY AUTOINCREMENT, OperationId TEXT NOT NULL, "
    "Draft TEXT NOT NULL, CreatedUtc TEXT NOT NULL)";

constexpr std::string_view kInsertItem =
    "INSERT INTO ApprovedBacklogItems(OperationId, Draft, CreatedUtc) "
    "SELECT OperationId, Draft, ?1 FROM Approvals "
    "WHERE OperationId = ?2 AND Status IN ('Approved','Completed') "
    "ON CONFLICT(OperationId) DO NOTHING";
constexpr std::string_view kInsertItemNoUnique =
    "INSERT INTO ApprovedBacklogItems(OperationId, Draft, CreatedUtc) "
    "SELECT OperationId, Draft, ?1 FROM Approvals "
    "WHERE OperationId = ?2 AND Status IN ('Approved','Completed')";
constexpr std::string_view kMarkCompleted =
    "UPDATE Approvals SET Status = 'Completed' WHERE OperationId = ?1 AND Status = 'Approved'";

#define SF_SELECT_ROW                                                                       \
  "SELECT a.OperationId, a.Draft, a.Status, a.Decision, a.Comment, "                        \
  "(SELECT MIN(b.ItemId) FROM ApprovedBacklogItems b WHERE b.OperationId = a.OperationId) " \
  "FROM Approvals a"
constexpr std::string_view kSelectRowOf = SF_SELECT_ROW " WHERE a.OperationId = ?1";
constexpr std::string_view kSelectAllRows = SF_SELECT_ROW " ORDER BY a.OperationId";
#undef SF_SELECT_ROW

// Connections Open has opened in this process, and stores open now (for tests).
std::atomic<uint64_t> opens{0};
std::atomic<int64_t> open_now{0};

Result<ApprovalStatus> ParseStatus(const std::string& text) {
  for (ApprovalStatus s : {ApprovalStatus::kWaiting, ApprovalStatus::kApproved,
                           ApprovalStatus::kRejected, ApprovalStatus::kCompleted}) {
    if (ApprovalStatusName(s) == text) return s;
  }
  return Status::Corruption("Approvals.Status holds '" + text +
                            "', which is not a known status; the database was altered");
}

Result<ApprovalRow> RowFrom(const Statement& stmt) {
  ApprovalRow row;
  row.operation_id = stmt.Text(0);
  row.draft = stmt.Text(1);
  SF_ASSIGN_OR_RETURN(row.status, ParseStatus(stmt.Text(2)));
  row.decision = stmt.OptionalText(3);
  row.comment = stmt.OptionalText(4);
  if (!stmt.IsNull(5)) row.item_id = stmt.Int64(5);
  return row;
}

std::string Quote(const std::string& text) { return "'" + text + "'"; }

// Whether the connection's loaded schema has a table `name` in "main" (no SQL parsed, no I/O once
// the schema is loaded). False on any error, so the caller falls back to creating it.
bool HasTable(sqlite3* db, const char* name) {
  return sqlite3_table_column_metadata(db, "main", name, nullptr, nullptr, nullptr, nullptr,
                                       nullptr, nullptr) == SQLITE_OK;
}

}  // namespace

ApprovalStore::ApprovalStore(std::string path, sqlite3* db, ApprovalStoreOptions options)
    : path_(std::move(path)),
      db_(db),
      statements_(std::make_unique<sql::StatementCache>(db)),
      options_(std::move(options)) {
  open_now.fetch_add(1);
  probe_ = options_.probe != nullptr ? options_.probe : NullProbe();
  if (options_.clock == nullptr) owned_clock_ = std::make_unique<LogicalClock>();
  clock_ = options_.clock != nullptr ? options_.clock : owned_clock_.get();
}

ApprovalStore::~ApprovalStore() {
  statements_.reset();  // finalized first: a connection with live statements closes as a zombie
  sqlite3_close_v2(db_);
  open_now.fetch_sub(1);
}

uint64_t ApprovalStore::OpensForTesting() { return opens.load(); }

int64_t ApprovalStore::OpenNowForTesting() { return open_now.load(); }

uint64_t ApprovalStore::StatementsPreparedForTesting() {
  std::lock_guard<std::mutex> lock(mu_);
  return statements_->prepared();
}

Result<std::unique_ptr<ApprovalStore>> ApprovalStore::Open(const std::string& db_path,
                                                           ApprovalStoreOptions options) {
  sqlite3* db = nullptr;
  const char* vfs = options.vfs_name.empty() ? nullptr : options.vfs_name.c_str();
  if (vfs != nullptr && sqlite3_vfs_find(vfs) == nullptr) {
    return Status::InvalidArgument("no SQLite VFS named '" + options.vfs_name +
                                   "' is registered; register it before opening the store");
  }
  if (options.durable_env != nullptr) {
    const std::string base = BaseName(db_path);
    SF_RETURN_IF_ERROR(
        MakeInheritedDurable(options.durable_env, DirName(db_path), {base, base + "-journal"}));
  }
  const int flags =
      options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  opens.fetch_add(1);
  int rc = sqlite3_open_v2(db_path.c_str(), &db, flags, vfs);
  if (rc != SQLITE_OK) {
    Status s = sql::ErrorStatus(db, rc, "opening business database '" + db_path + "'");
    sqlite3_close_v2(db);
    return s;
  }
  // From here the store owns the handle and closes it on every path.
  std::unique_ptr<ApprovalStore> store(new ApprovalStore(db_path, db, std::move(options)));
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  if (store->options_.read_only) return store;

  {
    Statement journal;
    SF_RETURN_IF_ERROR(journal.Prepare(db, "PRAGMA journal_mode=DELETE"));
    SF_ASSIGN_OR_RETURN(bool has_row, journal.Step());
    if (!has_row || journal.Text(0) != "delete") {
      return Status::IOError("business database '" + db_path +
                             "' refused journal_mode=DELETE; use a VFS that supports a rollback "
                             "journal");
    }
  }
  SF_RETURN_IF_ERROR(sql::Exec(db, "PRAGMA synchronous=EXTRA"));
  if (!store->options_.after_open_sql.empty()) {
    SF_RETURN_IF_ERROR(sql::Exec(db, store->options_.after_open_sql.c_str()));
  }

  Transaction txn(db);
  SF_RETURN_IF_ERROR(txn.Begin());
  // Every life reopens a database whose schema exists, where both CREATE ... IF NOT EXISTS are
  // no-ops that SQLite still parses (a fifth of a host's open). Skipping them when the schema
  // already read (by the journal_mode pragma above, under this write lock) names both tables
  // changes nothing SQLite does to the files: the transaction, its lock and its (empty) commit
  // stay. Anything else (a fresh database, an error asking) runs them as before.
  if (!HasTable(db, "Approvals") || !HasTable(db, "ApprovedBacklogItems")) {
    SF_RETURN_IF_ERROR(sql::Exec(db, kCreateApprovals));
    SF_RETURN_IF_ERROR(
        sql::Exec(db, store->options_.hazard_no_unique_key ? kCreateItemsNoUnique : kCreateItems));
  }
  SF_RETURN_IF_ERROR(txn.Commit());
  return store;
}

Status ApprovalStore::RegisterProposal(const std::string& op_id, const std::string& draft) {
  SF_CHECK(!op_id.empty());
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(statements_.get());
  SF_RETURN_IF_ERROR(txn.Begin());
  Statement select;
  SF_RETURN_IF_ERROR(
      select.Use(statements_.get(), "SELECT Draft FROM Approvals WHERE OperationId = ?1"));
  SF_RETURN_IF_ERROR(select.BindText(1, op_id));
  SF_ASSIGN_OR_RETURN(bool exists, select.Step());
  if (exists) {
    if (select.Text(0) == draft) return Status::Ok();  // idempotent re-registration
    return Status::AlreadyExists("operation " + op_id +
                                 " is bound to another draft; an operation id names one immutable "
                                 "proposal, so start a new operation for a new draft");
  }
  Statement insert;
  SF_RETURN_IF_ERROR(
      insert.Use(statements_.get(),
                 "INSERT INTO Approvals(OperationId, Draft, Status) VALUES(?1, ?2, 'Waiting')"));
  SF_RETURN_IF_ERROR(insert.BindText(1, op_id));
  SF_RETURN_IF_ERROR(insert.BindText(2, draft));
  SF_RETURN_IF_ERROR(insert.Run());
  return txn.Commit();
}

Status ApprovalStore::RecordDecision(const std::string& op_id, const std::string& choice,
                                     const std::string& comment) {
  std::lock_guard<std::mutex> lock(mu_);
  return RecordDecisionLocked(op_id, choice, comment);
}

Status ApprovalStore::RecordDecisionLocked(const std::string& op_id, const std::string& choice,
                                           const std::string& comment) {
  SF_RETURN_IF_ERROR(ValidateDecision(choice, comment));
  {
    Transaction txn(statements_.get());
    SF_RETURN_IF_ERROR(txn.Begin());
    Statement select;
    SF_RETURN_IF_ERROR(select.Use(
        statements_.get(), "SELECT Decision, Comment FROM Approvals WHERE OperationId = ?1"));
    SF_RETURN_IF_ERROR(select.BindText(1, op_id));
    SF_ASSIGN_OR_RETURN(bool exists, select.Step());
    if (!exists) {
      return Status::NotFound("operation " + op_id +
                              " is not registered; start the operation before deciding it");
    }
    std::optional<std::string> decided = select.OptionalText(0);
    if (decided.has_value()) {
      std::string decided_comment = select.Text(1);
      const bool same = options_.same_decision
                            ? options_.same_decision(*decided, decided_comment, choice, comment)
                            : *decided == choice && decided_comment == comment;
      if (same) return Status::Ok();  // exact replay
      return Status::FailedPrecondition(
          "operation " + op_id + " was already decided " + Quote(*decided) + " with comment " +
          Quote(decided_comment) + "; a replay must repeat it exactly (got " + Quote(choice) +
          " with comment " + Quote(comment) + ")");
    }
    Statement update;
    SF_RETURN_IF_ERROR(update.Use(statements_.get(),
                                  "UPDATE Approvals SET Status = ?1, Decision = ?2, Comment = ?3 "
                                  "WHERE OperationId = ?4 AND Status = 'Waiting'"));
    const ApprovalStatus next =
        choice == kChoiceApprove ? ApprovalStatus::kApproved : ApprovalStatus::kRejected;
    SF_RETURN_IF_ERROR(update.BindText(1, ApprovalStatusName(next)));
    SF_RETURN_IF_ERROR(update.BindText(2, choice));
    SF_RETURN_IF_ERROR(update.BindText(3, comment));
    SF_RETURN_IF_ERROR(update.BindText(4, op_id));
    SF_RETURN_IF_ERROR(update.Run());
    SF_CHECK(sqlite3_changes(db_) == 1);  // the row was Waiting under our write lock
    SF_RETURN_IF_ERROR(txn.Commit());
  }
  probe_->Hit(points::kDecisionRecordAfter);
  return Status::Ok();
}

Result<ApplyResult> ApprovalStore::Apply(const std::string& op_id, const std::string& choice,
                                         const std::string& comment) {
  std::lock_guard<std::mutex> lock(mu_);
  SF_RETURN_IF_ERROR(RecordDecisionLocked(op_id, choice, comment));
  if (options_.split_effect_commit) {
    // Test seam (ApprovalSeams::split_effect_commit): the status commits in a transaction of
    // its own before the row's; never set outside the bug-class tests.
    Transaction early(statements_.get());
    SF_RETURN_IF_ERROR(early.Begin());
    Statement mark;
    SF_RETURN_IF_ERROR(mark.Use(statements_.get(), kMarkCompleted));
    SF_RETURN_IF_ERROR(mark.BindText(1, op_id));
    SF_RETURN_IF_ERROR(mark.Run());
    SF_RETURN_IF_ERROR(early.Commit());
  }
  {
    Transaction txn(statements_.get());
    SF_RETURN_IF_ERROR(txn.Begin());
    Statement insert;
    SF_RETURN_IF_ERROR(insert.Use(
        statements_.get(), options_.hazard_no_unique_key ? kInsertItemNoUnique : kInsertItem));
    SF_RETURN_IF_ERROR(insert.BindText(1, FormatUtc(clock_->NowMicros())));
    SF_RETURN_IF_ERROR(insert.BindText(2, op_id));
    SF_RETURN_IF_ERROR(insert.Run());
    if (options_.split_effect_commit_row_first) {
      // Test seam (ApprovalSeams::split_effect_commit_row_first): the row commits alone and
      // the status follows in a transaction of its own; never set outside the bug-class tests.
      probe_->Hit(points::kEffectCommitBefore);
      SF_RETURN_IF_ERROR(txn.Commit());
      SF_RETURN_IF_ERROR(txn.Begin());
    }
    Statement complete;
    SF_RETURN_IF_ERROR(complete.Use(statements_.get(), kMarkCompleted));
    SF_RETURN_IF_ERROR(complete.BindText(1, op_id));
    SF_RETURN_IF_ERROR(complete.Run());
    probe_->Hit(points::kEffectCommitBefore);
    SF_RETURN_IF_ERROR(txn.Commit());
  }
  probe_->Hit(points::kEffectCommitAfter);
  SF_ASSIGN_OR_RETURN(ApprovalRow row, ReadLocked(op_id));
  ApplyResult result;
  result.status = row.status;
  if (row.status == ApprovalStatus::kCompleted) {
    if (!row.item_id.has_value()) {
      return Status::Internal("operation " + op_id +
                              " is Completed but has no backlog row; the effect was lost");
    }
    result.item_id = row.item_id;
  }
  return result;
}

Result<ApprovalRow> ApprovalStore::Read(const std::string& op_id) {
  std::lock_guard<std::mutex> lock(mu_);
  return ReadLocked(op_id);
}

Result<ApprovalRow> ApprovalStore::ReadLocked(const std::string& op_id) {
  Statement select;
  SF_RETURN_IF_ERROR(select.Use(statements_.get(), kSelectRowOf));
  SF_RETURN_IF_ERROR(select.BindText(1, op_id));
  SF_ASSIGN_OR_RETURN(bool exists, select.Step());
  if (!exists) return Status::NotFound("operation " + op_id + " is not in the business database");
  return RowFrom(select);
}

Result<std::vector<ApprovalRow>> ApprovalStore::ReadAll() {
  std::lock_guard<std::mutex> lock(mu_);
  Statement select;
  SF_RETURN_IF_ERROR(select.Use(statements_.get(), kSelectAllRows));
  std::vector<ApprovalRow> rows;
  while (true) {
    SF_ASSIGN_OR_RETURN(bool has_row, select.Step());
    if (!has_row) break;
    SF_ASSIGN_OR_RETURN(ApprovalRow row, RowFrom(select));
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::vector<BacklogItem>> ApprovalStore::Items() {
  std::lock_guard<std::mutex> lock(mu_);
  Statement select;
  SF_RETURN_IF_ERROR(select.Use(
      statements_.get(),
      "SELECT ItemId, OperationId, Draft, CreatedUtc FROM ApprovedBacklogItems ORDER BY ItemId"));
  std::vector<BacklogItem> items;
  while (true) {
    SF_ASSIGN_OR_RETURN(bool has_row, select.Step());
    if (!has_row) break;
    items.push_back({select.Int64(0), select.Text(1), select.Text(2), select.Text(3)});
  }
  return items;
}

Result<std::optional<int64_t>> ApprovalStore::StoredItemByJoin(const std::string& op_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Statement select;
  SF_RETURN_IF_ERROR(
      select.Use(statements_.get(),
                 "SELECT b.ItemId FROM Approvals a JOIN ApprovedBacklogItems b "
                 "ON b.OperationId = a.OperationId "
                 "WHERE a.OperationId = ?1 AND a.Status = 'Completed' ORDER BY b.ItemId LIMIT 1"));
  SF_RETURN_IF_ERROR(select.BindText(1, op_id));
  SF_ASSIGN_OR_RETURN(bool has_row, select.Step());
  if (!has_row) return std::optional<int64_t>();
  return std::optional<int64_t>(select.Int64(0));
}

Result<std::string> ApprovalStore::IntegrityCheck() {
  std::lock_guard<std::mutex> lock(mu_);
  Statement check;
  SF_RETURN_IF_ERROR(check.Use(statements_.get(), "PRAGMA integrity_check"));
  std::string out;
  while (true) {
    SF_ASSIGN_OR_RETURN(bool has_row, check.Step());
    if (!has_row) break;
    if (!out.empty()) out += '\n';
    out += check.Text(0);
  }
  return out;
}

}  // namespace stepfault::scenarios
