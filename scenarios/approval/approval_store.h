// ApprovalStore: the business SQLite database of the `approval` scenario (Demo320, docs/design.md
// §7).
//
// It binds an immutable draft to an operation id, persists the first valid decision before the
// engine sees it, and applies an approved decision as one local, idempotent effect: the backlog
// row and the Completed status commit together in one transaction, and UNIQUE(OperationId) keeps a
// replay (or a concurrent second caller) from adding a second row. Every replay returns the same
// ItemId. What it does NOT promise: the database and the engine's checkpoint files share no
// transaction, so a crash after the commit is repaired by replaying the decision, not by rollback.
//
// Durability: rollback journal (journal_mode=DELETE) and synchronous=FULL; the database is opened
// through the VFS named in the options, so the simulated file system can stand under it unseen.
// Thread-safety: one store is safe to share between threads (calls are serialised by a mutex);
// several stores on one file are safe too (SQLite file locks, BEGIN IMMEDIATE, a bounded busy
// wait). A probe may throw to simulate a crash; open transactions and statements are released by
// RAII.
// One store is one connection: a host opens it once per life (process) and uses it for the whole
// life; each statement is prepared once per connection (SQLITE_PREPARE_PERSISTENT) and reset with
// its bindings cleared after every use. Nothing outlives the store: destroying it (also while a
// simulated crash unwinds the life) finalizes the statements and closes the connection.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/clock.h"
#include "engine/env.h"
#include "engine/probe.h"
#include "engine/status.h"

struct sqlite3;

namespace stepfault::scenarios {
namespace sql {
class StatementCache;
}  // namespace sql

// The lifecycle of an operation: Waiting -> Approved -> Completed, or Waiting -> Rejected (final).
enum class ApprovalStatus { kWaiting, kApproved, kRejected, kCompleted };
// "Waiting", "Approved", "Rejected", "Completed": the strings stored in Approvals.Status.
std::string_view ApprovalStatusName(ApprovalStatus status);

inline constexpr std::string_view kChoiceApprove = "approve";
inline constexpr std::string_view kChoiceReject = "reject";
inline constexpr size_t kCommentMaxCodePoints = 500;

// The decision rules of Demo320, pure: `choice` is exactly "approve" or "reject"; `comment` is
// valid UTF-8 of 1..500 code points and not only whitespace (Unicode White_Space). Every failure
// is kInvalidArgument with a message that says what was wrong and what to send instead.
Status ValidateDecision(const std::string& choice, const std::string& comment);
// A draft is 1 to kDraftMaxBytes bytes of strictly valid UTF-8 (checked before anything is
// written: invalid UTF-8 cannot be stored in a checkpoint's JSON).
inline constexpr size_t kDraftMaxBytes = 4000;
Status ValidateDraft(const std::string& draft);

struct ApprovalRow {
  std::string operation_id;
  std::string draft;
  ApprovalStatus status = ApprovalStatus::kWaiting;
  std::optional<std::string> decision;  // "approve" / "reject" once decided
  std::optional<std::string> comment;
  std::optional<int64_t> item_id;  // lowest ApprovedBacklogItems.ItemId of this operation, if any
  friend bool operator==(const ApprovalRow&, const ApprovalRow&) = default;
};

struct BacklogItem {
  int64_t item_id = 0;
  std::string operation_id;
  std::string draft;
  std::string created_utc;
  friend bool operator==(const BacklogItem&, const BacklogItem&) = default;
};

// The state Apply reads back after its commit.
struct ApplyResult {
  ApprovalStatus status = ApprovalStatus::kWaiting;
  std::optional<int64_t> item_id;  // set when Completed; nullopt for a rejection
  friend bool operator==(const ApplyResult&, const ApplyResult&) = default;
};

struct ApprovalStoreOptions {
  // SQLite VFS to open the database through; empty = SQLite's default VFS.
  std::string vfs_name;
  // Receives the named fault points below; null = NullProbe().
  Probe* probe = nullptr;
  // Source of ApprovedBacklogItems.CreatedUtc (never the wall clock); null = a LogicalClock owned
  // by the store. REQUIRES: outlives the store.
  Clock* clock = nullptr;
  // Mutant: ApprovedBacklogItems without UNIQUE(OperationId) and a plain INSERT, so a replayed
  // Apply adds a second row. Takes effect when the store creates the schema (a fresh database).
  bool hazard_no_unique_key = false;
  // Open an existing database read-only (`approval status`): no file is created, no schema set up,
  // no journal mode changed. A missing database is kNotFound.
  bool read_only = false;
  // The file system under the VFS. When set (a host opening the database to act on it), Open first
  // makes the database, its journal and their directory durable (MakeInheritedDurable, the recovery
  // rule of engine/env.h). Null: a read-only look (the oracles), which must change nothing.
  Env* durable_env = nullptr;
  // Test seam (ApprovalSeams::same_decision, approval_seams.h): the replay rule; null = both fields
  // must be equal.
  std::function<bool(const std::string&, const std::string&, const std::string&,
                     const std::string&)>
      same_decision;
  // Test seams (HostSeams): commit the effect in two transactions, the Completed status first and
  // the backlog row second (a host that split the one transaction); and SQL run right after the
  // store configured its database (e.g. "PRAGMA synchronous=OFF"). Defaults: the faithful store.
  bool split_effect_commit = false;
  // The same split in the other order: the backlog row first, the Completed status second.
  bool split_effect_commit_row_first = false;
  std::string after_open_sql;
};

// Fault points (probe names) the store hits.

class ApprovalStore {
 public:
  // Opens (creating if missing) the database at `db_path` and its schema.
  static Result<std::unique_ptr<ApprovalStore>> Open(const std::string& db_path,
                                                     ApprovalStoreOptions options);
  ~ApprovalStore();
  ApprovalStore(const ApprovalStore&) = delete;
  ApprovalStore& operator=(const ApprovalStore&) = delete;

  // Binds `draft` to `op_id` with status Waiting. Registering the same pair again is a no-op;
  // `op_id` bound to a different draft gives kAlreadyExists. REQUIRES: op_id non-empty.
  Status RegisterProposal(const std::string& op_id, const std::string& draft);

  // Persists the first valid decision (Waiting -> Approved/Rejected), then hits
  // "decision.record.after". Once decided, a call must repeat the exact choice and comment (a
  // no-op, ok); anything else gives kFailedPrecondition. Unknown op: kNotFound. Invalid decision:
  // kInvalidArgument (ValidateDecision).
  Status RecordDecision(const std::string& op_id, const std::string& choice,
                        const std::string& comment);

  // Records the decision again (to verify it), then in one transaction inserts the backlog row of
  // an approved operation (if none exists) and marks it Completed; "effect.commit.before" and
  // "effect.commit.after" surround the COMMIT. Returns the state read back: a rejection gives
  // Rejected and no item; a replay gives the same ItemId.
  Result<ApplyResult> Apply(const std::string& op_id, const std::string& choice,
                            const std::string& comment);

  // kNotFound for an unknown op.
  Result<ApprovalRow> Read(const std::string& op_id);
  // Every operation, ordered by OperationId.
  Result<std::vector<ApprovalRow>> ReadAll();
  // Every backlog row, ordered by ItemId.
  Result<std::vector<BacklogItem>> Items();
  // The independent read `status` prints as StoredItem: Approvals joined to ApprovedBacklogItems
  // on OperationId where Status='Completed' (lowest ItemId if a mutant made several); nullopt
  // when the operation is unknown or not Completed.
  Result<std::optional<int64_t>> StoredItemByJoin(const std::string& op_id);
  // The output of PRAGMA integrity_check ("ok" for a sound database), lines joined by '\n'.
  Result<std::string> IntegrityCheck();

  const std::string& path() const { return path_; }

  // For tests: how many connections Open has opened in this process so far, how many stores are
  // open now, and how many statements this store's connection has prepared (a repeated call
  // prepares none).
  static uint64_t OpensForTesting();
  static int64_t OpenNowForTesting();
  uint64_t StatementsPreparedForTesting();

 private:
  ApprovalStore(std::string path, sqlite3* db, ApprovalStoreOptions options);
  Status RecordDecisionLocked(const std::string& op_id, const std::string& choice,
                              const std::string& comment);
  Result<ApprovalRow> ReadLocked(const std::string& op_id);

  std::mutex mu_;
  const std::string path_;
  sqlite3* const db_;
  // The connection's prepared statements; destroyed before the connection is closed.
  std::unique_ptr<sql::StatementCache> statements_;
  const ApprovalStoreOptions options_;
  std::unique_ptr<Clock> owned_clock_;
  Probe* probe_;
  Clock* clock_;
};

}  // namespace stepfault::scenarios
