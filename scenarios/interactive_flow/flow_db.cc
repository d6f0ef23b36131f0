// The interactive-flow database: connection helper and schema (see flow_db.h).
#include "scenarios/interactive_flow/flow_db.h"

#include <stdexcept>

#include "faults/actor_scheduler.h"

namespace stepfault::scenarios::flow {

std::string Q(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

FlowDb::FlowDb(const std::string& path, const std::string& vfs) {
  int rc =
      sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs.c_str());
  const char* what = "open";
  if (rc == SQLITE_OK) {
    sqlite3_busy_handler(db_, faults::SqliteBusyYield, nullptr);
    rc = sqlite3_exec(db_, "PRAGMA synchronous=EXTRA", nullptr, nullptr, nullptr);
    what = "PRAGMA synchronous";
  }
  if (rc != SQLITE_OK) {
    // A throwing constructor runs no destructor: close here, or an actor killed while it opens
    // leaks its connection (SQLite allocates one even when the open fails).
    sqlite3_close_v2(db_);
    db_ = nullptr;
    Fail(rc, std::string(what) + " " + path);
  }
}

FlowDb::~FlowDb() { sqlite3_close_v2(db_); }

void FlowDb::Fail(int rc, const std::string& sql) {
  const int primary = rc & 0xff;
  if (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN || primary == SQLITE_FULL) {
    throw ActorGone{};  // the process was killed or the world froze: the VFS refuses everything
  }
  throw std::runtime_error("flow.db: " + std::string(sqlite3_errstr(rc)) + " in: " + sql);
}

int FlowDb::Exec(const std::string& sql) {
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK && rc != SQLITE_BUSY) Fail(rc, sql);
  return rc;
}

std::vector<Row> FlowDb::Query(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
  if (rc != SQLITE_OK) Fail(rc, sql);
  std::vector<Row> rows;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    Row row;
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const unsigned char* text = sqlite3_column_text(stmt, i);
      row.emplace_back(text == nullptr ? "" : reinterpret_cast<const char*>(text));
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) Fail(rc, sql);
  return rows;
}

int64_t FlowDb::QueryInt(const std::string& sql, int64_t fallback) {
  std::vector<Row> rows = Query(sql);
  if (rows.empty() || rows[0].empty() || rows[0][0].empty()) return fallback;
  return std::stoll(rows[0][0]);
}

int64_t FlowDb::Changes() const { return sqlite3_changes64(db_); }

bool FlowDb::Begin() { return Exec("BEGIN IMMEDIATE") == SQLITE_OK; }

void FlowDb::Commit() {
  // A COMMIT that finds readers in the way is retried by the busy handler; after the cut-off it
  // gives up and the transaction is rolled back (nothing of it happened).
  if (Exec("COMMIT") != SQLITE_OK) Rollback();
}

void FlowDb::Rollback() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

void CreateFlowDatabase(FlowDb& db) {
  SF_CHECK(db.Begin());
  db.Exec(R"(
CREATE TABLE IF NOT EXISTS FlowRun(id TEXT PRIMARY KEY, definition TEXT NOT NULL,
  status TEXT NOT NULL, error TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS Binding(run TEXT, participant TEXT, namespace TEXT, resource TEXT,
  generation INT, revision INT, deployment TEXT, runtime_profile TEXT, model_profile TEXT,
  PRIMARY KEY(run, participant));
CREATE TABLE IF NOT EXISTS Revision(agent TEXT, revision INT, created_at INT, purged INT DEFAULT 0,
  PRIMARY KEY(agent, revision));
CREATE TABLE IF NOT EXISTS RuntimeState(run TEXT, runtime_type TEXT, state_id TEXT,
  parent_id TEXT, bytes BLOB, PRIMARY KEY(run, runtime_type, state_id));
CREATE TABLE IF NOT EXISTS InputRequest(id TEXT PRIMARY KEY, run TEXT, runtime_request TEXT,
  state TEXT, value TEXT, answered_at INT, principal TEXT, version INT, expires_at INT,
  resumed INT DEFAULT 0, checkpoint TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS Lease(run TEXT PRIMARY KEY, owner TEXT, epoch INT, claimed_at INT,
  expires_at INT);
CREATE TABLE IF NOT EXISTS Queue(seq INTEGER PRIMARY KEY AUTOINCREMENT, run TEXT, reason TEXT);
CREATE TABLE IF NOT EXISTS PendingAction(run TEXT, request TEXT, work_item TEXT,
  PRIMARY KEY(run, request));
CREATE TABLE IF NOT EXISTS Effect(op_id TEXT, run TEXT, value TEXT);
CREATE TABLE IF NOT EXISTS Clock(id INT PRIMARY KEY, now INT);
CREATE TABLE IF NOT EXISTS Journal(seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT, run TEXT,
  request TEXT, owner TEXT, epoch INT, at INT, detail TEXT);
INSERT OR IGNORE INTO Clock VALUES(1, 0);
INSERT OR IGNORE INTO Revision VALUES('planner', 1, -40, 0);
INSERT OR IGNORE INTO FlowRun VALUES('run-1', '{"participants":["planner"],"port":"approval"}',
  'Created', '');
INSERT OR IGNORE INTO Lease VALUES('run-1', NULL, 0, 0, 0);
INSERT INTO Queue(run, reason) SELECT 'run-1', 'start' WHERE NOT EXISTS (SELECT 1 FROM Queue);
)");
  db.Commit();
}

}  // namespace stepfault::scenarios::flow
