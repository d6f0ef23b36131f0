// Goal: SQLite keeps its own promise on our VFS and SimFs: after a crash or power loss at ANY file
// operation, or an EIO at any of them, the database is intact, every transaction that committed is
// there and no transaction that had not committed is. Method (SQLite's fault-simulation style):
// record the fault-free run's sequence of fault points, then for every point index i die (crash and
// power loss) or fail with EIO at i, reopen the database in the post-death world through a fresh
// VFS name, run PRAGMA integrity_check, and compare the table with the states an in-memory SQLite
// reaches after each transaction (a transaction whose COMMIT was in flight may be either state).
// Also: locks between connections, determinism, WAL refusal, and the documented power-loss hole of
// synchronous=FULL in DELETE mode, which the model must reproduce. Locks across simulated processes
// (one VFS name each over one SimFs): SQLite's own lock protocol run through two or three
// connections, checking each SQLITE_BUSY the unix VFS would give and each grant it would make, and
// that a killed process's locks vanish (its hot journal is rolled back) and a crashed machine's
// world starts with no locks.
#include "faults/sim_vfs.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/random.h"
#include "faults/sim_fs.h"
#include "tools/testing/test_env.h"

namespace stepfault::faults {
namespace {

constexpr char kDbPath[] = "/data/business.db";
constexpr int kTransactions = 20;

class RecordingHook final : public FaultHook {
 public:
  Decision OnPoint(std::string_view point) override {
    points.emplace_back(point);
    if (target.has_value() && points.size() - 1 == *target) return decision;
    return Decision::Proceed();
  }
  std::vector<std::string> points;
  std::optional<size_t> target;
  Decision decision;
};

// Transaction 0 creates the table; the others insert rows of ~600 bytes (pages span several
// sectors) and update or delete earlier ones.
std::vector<std::vector<std::string>> Transactions() {
  std::vector<std::vector<std::string>> txns = {{"CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT)"}};
  for (int j = 1; j <= kTransactions; ++j) {
    std::string value = std::string(600, static_cast<char>('a' + j % 26)) + std::to_string(j);
    std::vector<std::string> txn = {"INSERT INTO kv VALUES(" + std::to_string(j) + ", '" + value +
                                    "')"};
    if (j % 3 == 0) txn.push_back("UPDATE kv SET v = v || '-u' WHERE k = " + std::to_string(j - 2));
    if (j % 7 == 0) txn.push_back("DELETE FROM kv WHERE k = " + std::to_string(j - 5));
    txns.push_back(std::move(txn));
  }
  return txns;
}

int Exec(sqlite3* db, const std::string& sql) {
  return sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
}

// The table's content as text, or "<no table>".
std::string Dump(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT k, v FROM kv ORDER BY k", -1, &stmt, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return "<no table>";
  }
  std::string out;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const unsigned char* value = sqlite3_column_text(stmt, 1);  // NULL in a damaged row
    out += std::to_string(sqlite3_column_int64(stmt, 0)) + "=" +
           (value == nullptr ? "<null>" : reinterpret_cast<const char*>(value)) + ";";
  }
  if (rc != SQLITE_DONE) out += "<error " + std::to_string(rc) + ">";
  sqlite3_finalize(stmt);
  return out;
}

// states[c]: the table after the first c transactions (computed by SQLite in memory).
const std::vector<std::string>& ExpectedStates() {
  static const std::vector<std::string> states = [] {
    sqlite3* db = nullptr;
    SF_CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    std::vector<std::string> out = {Dump(db)};
    for (const auto& txn : Transactions()) {
      for (const std::string& sql : txn) SF_CHECK(Exec(db, sql) == SQLITE_OK);
      out.push_back(Dump(db));
    }
    sqlite3_close(db);
    return out;
  }();
  return states;
}

struct Outcome {
  int committed = 0;       // transactions whose COMMIT returned SQLITE_OK
  bool in_flight = false;  // the next transaction's COMMIT had started when the run stopped
  int first_error = SQLITE_OK;
};

// Runs the transactions until the first error (a death surfaces as an SQLite error).
Outcome RunWorkload(const std::string& vfs, const std::string& synchronous) {
  Outcome out;
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(kDbPath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs.c_str());
  auto stop = [&](int code) {
    out.first_error = code;
    sqlite3_close_v2(db);
    return out;
  };
  if (rc != SQLITE_OK) return stop(rc);
  if ((rc = Exec(db, "PRAGMA journal_mode=DELETE")) != SQLITE_OK) return stop(rc);
  if ((rc = Exec(db, "PRAGMA synchronous=" + synchronous)) != SQLITE_OK) return stop(rc);
  for (const auto& txn : Transactions()) {
    if ((rc = Exec(db, "BEGIN")) != SQLITE_OK) return stop(rc);
    for (const std::string& sql : txn) {
      if ((rc = Exec(db, sql)) != SQLITE_OK) return stop(rc);
    }
    out.in_flight = true;
    if ((rc = Exec(db, "COMMIT")) != SQLITE_OK) return stop(rc);
    out.in_flight = false;
    ++out.committed;
  }
  sqlite3_close_v2(db);
  return out;
}

struct Reopened {
  std::string integrity;
  std::string table;
};

Reopened Reopen(SimFs* fs, const std::string& vfs) {
  Reopened out;
  EXPECT_TRUE(RegisterSimVfs(vfs, fs, 99).ok());
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(kDbPath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs.c_str());
  if (rc != SQLITE_OK) {
    out.integrity = "<open failed: " + std::string(sqlite3_errstr(rc)) + ">";
  } else {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      out.integrity += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    out.table = Dump(db);
  }
  sqlite3_close_v2(db);
  UnregisterSimVfs(vfs);
  return out;
}

std::unique_ptr<SimFs> NewWorld() {
  auto fs = std::make_unique<SimFs>();
  fs->SetRoleClassifier(SqliteRoleOf);
  SF_CHECK(fs->CreateDirIfMissing("/data").ok());
  SF_CHECK(fs->SyncDir("/").ok());
  return fs;
}

// The fault-free run's points.
std::vector<std::string> RecordPoints(const std::string& synchronous) {
  auto fs = NewWorld();
  RecordingHook hook;
  fs->SetHook(&hook);
  EXPECT_TRUE(RegisterSimVfs("record", fs.get(), 1).ok());
  Outcome outcome = RunWorkload("record", synchronous);
  UnregisterSimVfs("record");
  EXPECT_EQ(outcome.first_error, SQLITE_OK);
  EXPECT_EQ(outcome.committed, kTransactions + 1);
  return hook.points;
}

// Says which states the reopened table may show.
void ExpectCommittedAndNothingElse(const Outcome& outcome, const Reopened& after,
                                   const std::string& where) {
  const auto& states = ExpectedStates();
  EXPECT_EQ(after.integrity, "ok") << where;
  const bool is_committed = after.table == states[outcome.committed];
  const bool is_in_flight = outcome.in_flight && after.table == states[outcome.committed + 1];
  EXPECT_TRUE(is_committed || is_in_flight)
      << where << ": committed=" << outcome.committed << " in_flight=" << outcome.in_flight
      << " table has " << std::count(after.table.begin(), after.table.end(), ';') << " rows";
}

// The process-wide setting the VFS's file applies before SQLite initializes is in effect: with
// memory statistics on, an open connection that created a table counts its allocations (26,912
// bytes with the initializer removed).
TEST(SimVfsTest, LinkingTheVfsTurnsSqliteMemoryStatisticsOff) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/w").ok());
  const std::string vfs = "memstatus";
  ASSERT_TRUE(RegisterSimVfs(vfs, &fs, 1).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(
      sqlite3_open_v2("/w/m.db", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs.c_str()),
      SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)", nullptr, nullptr, nullptr),
      SQLITE_OK);
  EXPECT_EQ(sqlite3_memory_used(), 0);
  sqlite3_close(db);
  UnregisterSimVfs(vfs);
}

TEST(SimVfsTest, FaultFreeRunCoversEveryKindOfPoint) {
  std::vector<std::string> points = RecordPoints("EXTRA");
  std::set<std::string> kinds(points.begin(), points.end());
  for (const char* expected :
       {"fs.create[db]", "fs.create[journal]", "fs.write[db]", "fs.write[journal]", "fs.fsync[db]",
        "fs.fsync[journal]", "fs.unlink[journal]", "fs.dirsync[file]"}) {
    EXPECT_EQ(kinds.count(expected), 1u) << expected;
  }
  EXPECT_GT(points.size(), static_cast<size_t>(5 * kTransactions));
}

// Dies (`kind`) at every point of the fault-free run under `synchronous` and checks the reopened
// post-death database against the oracle.
void SweepDeaths(const std::string& synchronous, DeathKind kind) {
  const std::vector<std::string> points = RecordPoints(synchronous);
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string where = synchronous + " " + std::string(DeathKindName(kind)) + "@" +
                              points[i] + "#" + std::to_string(i);
    auto fs = NewWorld();
    RecordingHook hook;
    hook.target = i;
    hook.decision = Decision::Die(kind);
    fs->SetHook(&hook);
    const std::string vfs = "die-" + std::to_string(i);
    ASSERT_TRUE(RegisterSimVfs(vfs, fs.get(), 1).ok());
    Outcome outcome = RunWorkload(vfs, synchronous);
    std::optional<CrashSignal> death = SimVfsDeath(vfs);
    UnregisterSimVfs(vfs);
    ASSERT_TRUE(death.has_value()) << where;
    EXPECT_EQ(death->point, points[i]) << where;
    EXPECT_EQ(death->kind, kind) << where;
    EXPECT_TRUE(fs->frozen());
    EXPECT_NE(outcome.first_error, SQLITE_OK) << where;
    EXPECT_EQ(hook.points.size(), i + 1) << where << ": nothing reached the hook after death";
    // Several seeds, so a torn last write is seen at several sector prefixes.
    const int seeds = kind != DeathKind::kPowerLoss ? 1 : test_env::LongRun() ? 64 : 8;
    for (int s = 0; s < seeds; ++s) {
      auto after_world = fs->CrashClone(kind, DeriveSeed(s, where));
      ExpectCommittedAndNothingElse(outcome, Reopen(after_world.get(), vfs + "-after"),
                                    where + " seed " + std::to_string(s));
    }
  }
}

TEST(SimVfsTest, CrashAtEveryPointKeepsExactlyTheCommittedTransactions) {
  SweepDeaths("EXTRA", DeathKind::kCrash);
  SweepDeaths("FULL", DeathKind::kCrash);  // a crash loses nothing written, whatever the syncs
  SweepDeaths("EXTRA", DeathKind::kExit);
}

TEST(SimVfsTest, PowerLossAtEveryPointKeepsExactlyTheCommittedTransactions) {
  // synchronous=EXTRA: SQLite's level that dir-syncs the deleted journal, so a commit survives
  // power loss (FULL does not promise that; see
  // FullSyncInDeleteModeMayLoseTheLastCommitOnPowerLoss).
  SweepDeaths("EXTRA", DeathKind::kPowerLoss);
}

// Fails (`code`) the point at every index and checks SQLite reported it and the database is intact,
// both as it is and after a later power loss.
void SweepFailures(StatusCode code) {
  const std::vector<std::string> points = RecordPoints("EXTRA");
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string where =
        std::string(StatusCodeName(code)) + "@" + points[i] + "#" + std::to_string(i);
    auto fs = NewWorld();
    RecordingHook hook;
    hook.target = i;
    hook.decision = Decision::Fail(code);
    fs->SetHook(&hook);
    const std::string vfs = "fail-" + std::to_string(i);
    ASSERT_TRUE(RegisterSimVfs(vfs, fs.get(), 1).ok());
    Outcome outcome = RunWorkload(vfs, "EXTRA");
    UnregisterSimVfs(vfs);
    EXPECT_NE(outcome.first_error, SQLITE_OK) << where << ": SQLite swallowed the failure";
    if (code == StatusCode::kNoSpace && points[i].rfind("fs.write", 0) == 0) {
      EXPECT_EQ(outcome.first_error, SQLITE_FULL) << where;
    }
    EXPECT_FALSE(fs->frozen());
    fs->SetHook(nullptr);
    ExpectCommittedAndNothingElse(outcome, Reopen(fs.get(), vfs + "-after"), where);
    // And the durable image alone is also intact.
    auto lost = fs->CrashClone(DeathKind::kPowerLoss, i);
    Reopened after_power_loss = Reopen(lost.get(), vfs + "-lost");
    EXPECT_EQ(after_power_loss.integrity, "ok") << where;
  }
}

TEST(SimVfsTest, EioAtEveryPointIsReportedAndLeavesTheDatabaseIntact) {
  SweepFailures(StatusCode::kIOError);
}

TEST(SimVfsTest, EnospcAtEveryPointIsReportedAndLeavesTheDatabaseIntact) {
  SweepFailures(StatusCode::kNoSpace);
}

TEST(SimVfsTest, FullSyncInDeleteModeMayLoseTheLastCommitOnPowerLoss) {
  // SQLite documents that synchronous=FULL does not dir-sync the deleted journal, so a power loss
  // right after COMMIT may roll the last transaction back. The strict model must show exactly that.
  auto fs = NewWorld();
  ASSERT_TRUE(RegisterSimVfs("full", fs.get(), 1).ok());
  Outcome outcome = RunWorkload("full", "FULL");
  UnregisterSimVfs("full");
  ASSERT_EQ(outcome.committed, kTransactions + 1);
  Reopened crashed = Reopen(fs->CrashClone(DeathKind::kCrash, 1).get(), "full-crash");
  EXPECT_EQ(crashed.table, ExpectedStates()[kTransactions + 1]);
  Reopened lost = Reopen(fs->CrashClone(DeathKind::kPowerLoss, 1).get(), "full-lost");
  EXPECT_EQ(lost.integrity, "ok");
  EXPECT_EQ(lost.table, ExpectedStates()[kTransactions]);
}

std::string WorldBytes(SimFs& fs) {
  std::string out;
  for (const std::string& path : fs.ListAllFiles()) out += path + "=" + *fs.ReadFile(path) + "\n";
  return out;
}

TEST(SimVfsTest, SameSeedGivesByteIdenticalWorlds) {
  std::vector<std::string> worlds;
  for (int run = 0; run < 3; ++run) {
    SeedSqliteRandomness(run < 2 ? 5 : 6);
    auto fs = NewWorld();
    const std::string vfs = "det-" + std::to_string(run);
    ASSERT_TRUE(RegisterSimVfs(vfs, fs.get(), 5).ok());
    // Keep the journal (PERSIST) so its random nonce is visible in the bytes compared.
    sqlite3* db = nullptr;
    ASSERT_EQ(
        sqlite3_open_v2(kDbPath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs.c_str()),
        SQLITE_OK);
    ASSERT_EQ(Exec(db,
                   "PRAGMA journal_mode=PERSIST; CREATE TABLE t(x);"
                   "INSERT INTO t VALUES(randomblob(16)), (datetime('now'));"),
              SQLITE_OK);
    sqlite3_close_v2(db);
    UnregisterSimVfs(vfs);
    worlds.push_back(WorldBytes(*fs));
  }
  EXPECT_TRUE(worlds[0] == worlds[1]) << "hashes " << Hash64(worlds[0]) << " " << Hash64(worlds[1]);
  EXPECT_FALSE(worlds[0] == worlds[2]) << "the seed must reach SQLite's randomness";
  EXPECT_NE(worlds[0].find("2026-01-01"), std::string::npos);  // the logical clock, not the wall
}

TEST(SimVfsTest, WalWorksOnlyInExclusiveLockingMode) {
  auto fs = NewWorld();
  ASSERT_TRUE(RegisterSimVfs("wal", fs.get(), 1).ok());
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  ASSERT_EQ(sqlite3_open_v2(kDbPath, &db, flags, "wal"), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(Exec(db, "PRAGMA locking_mode=EXCLUSIVE"), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  ASSERT_EQ(Exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1), (2);"), SQLITE_OK);
  EXPECT_TRUE(*fs->FileExists(std::string(kDbPath) + "-wal"));
  // A crash with the WAL not yet checkpointed: the reopened database replays it.
  auto crashed = fs->CrashClone(DeathKind::kCrash, 1);
  sqlite3_close_v2(db);
  UnregisterSimVfs("wal");
  ASSERT_TRUE(RegisterSimVfs("wal-after", crashed.get(), 1).ok());
  ASSERT_EQ(sqlite3_open_v2(kDbPath, &db, flags, "wal-after"), SQLITE_OK);
  ASSERT_EQ(Exec(db, "PRAGMA locking_mode=EXCLUSIVE"), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 2);
  sqlite3_finalize(stmt);
  sqlite3_close_v2(db);
  UnregisterSimVfs("wal-after");
}

TEST(SimVfsTest, LocksSerializeWritersAndWalIsRefusedWithoutExclusiveLocking) {
  auto fs = NewWorld();
  ASSERT_TRUE(RegisterSimVfs("locks", fs.get(), 1).ok());
  EXPECT_EQ(RegisterSimVfs("locks", fs.get(), 1).code(), StatusCode::kAlreadyExists);
  sqlite3* a = nullptr;
  sqlite3* b = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  ASSERT_EQ(sqlite3_open_v2(kDbPath, &a, flags, "locks"), SQLITE_OK);
  ASSERT_EQ(sqlite3_open_v2(kDbPath, &b, flags, "locks"), SQLITE_OK);
  ASSERT_EQ(Exec(a, "CREATE TABLE t(x); INSERT INTO t VALUES(1);"), SQLITE_OK);
  ASSERT_EQ(Exec(a, "BEGIN IMMEDIATE; INSERT INTO t VALUES(2);"), SQLITE_OK);
  EXPECT_EQ(Exec(b, "BEGIN IMMEDIATE"), SQLITE_BUSY);       // one writer
  EXPECT_EQ(Exec(b, "SELECT count(*) FROM t"), SQLITE_OK);  // readers join a RESERVED writer
  ASSERT_EQ(Exec(a, "COMMIT"), SQLITE_OK);
  EXPECT_EQ(Exec(b, "BEGIN IMMEDIATE; INSERT INTO t VALUES(3); COMMIT;"), SQLITE_OK);
  // No shared memory: WAL is refused and the journal mode stays a rollback journal.
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(a, "PRAGMA journal_mode=WAL", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "delete");
  sqlite3_finalize(stmt);
  sqlite3_close_v2(a);
  sqlite3_close_v2(b);
  UnregisterSimVfs("locks");
  EXPECT_EQ(SqliteRoleOf("/data/x.db-journal"), "journal");
  EXPECT_EQ(SqliteRoleOf("/data/x.db-wal"), "journal");
  EXPECT_EQ(SqliteRoleOf("/data/x.db"), "db");
  EXPECT_EQ(SqliteRoleOf("/data/x.json"), "file");
}

// The count of rows in t seen by db, or -1 with the error in *rc.
int CountRows(sqlite3* db, int* rc) {
  sqlite3_stmt* stmt = nullptr;
  *rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &stmt, nullptr);
  int count = -1;
  if (*rc == SQLITE_OK) {
    *rc = sqlite3_step(stmt);
    if (*rc == SQLITE_ROW) {
      count = sqlite3_column_int(stmt, 0);
      *rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(stmt);
  return count;
}

// Two simulated processes ("p1", "p2", and "p3" when asked) on one world, each with a connection.
struct TwoProcesses {
  std::unique_ptr<SimFs> fs = NewWorld();
  std::vector<std::string> names;
  std::vector<sqlite3*> dbs;
  explicit TwoProcesses(int count = 2) {
    for (int i = 0; i < count; ++i) {
      names.push_back("proc" + std::to_string(i));
      SF_CHECK(RegisterSimVfs(names.back(), fs.get(), 7).ok());
      sqlite3* db = nullptr;
      SF_CHECK(sqlite3_open_v2(kDbPath, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                               names.back().c_str()) == SQLITE_OK);
      dbs.push_back(db);
    }
    SF_CHECK(Exec(dbs[0], "CREATE TABLE t(x); INSERT INTO t VALUES(1);") == SQLITE_OK);
  }
  ~TwoProcesses() {
    for (sqlite3* db : dbs) sqlite3_close_v2(db);
    for (const std::string& name : names) UnregisterSimVfs(name);
  }
};

TEST(SimVfsLockTest, AWriterInOneProcessMakesAnotherProcessesWriterBusy) {
  TwoProcesses w;
  ASSERT_EQ(Exec(w.dbs[0], "BEGIN IMMEDIATE; INSERT INTO t VALUES(2);"), SQLITE_OK);
  EXPECT_EQ(Exec(w.dbs[1], "BEGIN IMMEDIATE"), SQLITE_BUSY);
  int rc = 0;
  EXPECT_EQ(CountRows(w.dbs[1], &rc), 1) << "a reader joins a RESERVED writer, sees the old rows";
  EXPECT_EQ(rc, SQLITE_OK);
  ASSERT_EQ(Exec(w.dbs[0], "COMMIT"), SQLITE_OK);
  EXPECT_EQ(Exec(w.dbs[1], "BEGIN IMMEDIATE; INSERT INTO t VALUES(3); COMMIT;"), SQLITE_OK);
  EXPECT_EQ(CountRows(w.dbs[0], &rc), 3);
}

TEST(SimVfsLockTest, ReadersShareAndAPendingWriterKeepsNewReadersOut) {
  TwoProcesses w(3);
  // Two open read transactions at once: both hold SHARED.
  ASSERT_EQ(Exec(w.dbs[1], "BEGIN; SELECT * FROM t;"), SQLITE_OK);
  ASSERT_EQ(Exec(w.dbs[2], "BEGIN; SELECT * FROM t;"), SQLITE_OK);
  ASSERT_EQ(Exec(w.dbs[0], "BEGIN IMMEDIATE; INSERT INTO t VALUES(2);"), SQLITE_OK);
  // The writer cannot get EXCLUSIVE past the readers: BUSY, and it stays PENDING.
  EXPECT_EQ(Exec(w.dbs[0], "COMMIT"), SQLITE_BUSY);
  ASSERT_EQ(Exec(w.dbs[2], "COMMIT"), SQLITE_OK);  // reader 2 leaves
  int rc = 0;
  EXPECT_EQ(CountRows(w.dbs[2], &rc), -1) << "PENDING lets no new SHARED in";
  EXPECT_EQ(rc, SQLITE_BUSY);
  EXPECT_EQ(Exec(w.dbs[0], "COMMIT"), SQLITE_BUSY) << "reader 1 still holds SHARED";
  ASSERT_EQ(Exec(w.dbs[1], "COMMIT"), SQLITE_OK);
  EXPECT_EQ(Exec(w.dbs[0], "COMMIT"), SQLITE_OK);
  EXPECT_EQ(CountRows(w.dbs[2], &rc), 2);
}

TEST(SimVfsLockTest, AKilledProcessesLocksVanishAndItsHotJournalIsRolledBack) {
  TwoProcesses w;
  // Process 0 spills a big uncommitted transaction into the database file (a tiny page cache), so
  // the file holds uncommitted pages and the journal the originals; then it dies.
  ASSERT_EQ(Exec(w.dbs[0], "PRAGMA cache_size=2"), SQLITE_OK);
  ASSERT_EQ(Exec(w.dbs[0], "BEGIN IMMEDIATE"), SQLITE_OK);
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ(Exec(w.dbs[0], "INSERT INTO t VALUES(randomblob(900))"), SQLITE_OK);
  }
  ASSERT_TRUE(*w.fs->FileExists(std::string(kDbPath) + "-journal"));
  EXPECT_EQ(Exec(w.dbs[1], "BEGIN IMMEDIATE"), SQLITE_BUSY);
  const uint64_t ops_before_kill = w.fs->op_count();
  const std::string digest_before_kill = w.fs->Digest();
  ASSERT_TRUE(KillSimVfsProcess(w.names[0]).ok());
  EXPECT_NE(Exec(w.dbs[0], "COMMIT"), SQLITE_OK) << "a dead process commits nothing";
  sqlite3_close_v2(w.dbs[0]);
  w.dbs[0] = nullptr;
  EXPECT_EQ(w.fs->op_count(), ops_before_kill) << "death and close did no I/O";
  EXPECT_EQ(w.fs->Digest(), digest_before_kill);
  // The survivor finds the journal hot (no RESERVED holder), rolls it back and can write.
  int rc = 0;
  EXPECT_EQ(CountRows(w.dbs[1], &rc), 1);
  EXPECT_EQ(rc, SQLITE_OK);
  EXPECT_EQ(Exec(w.dbs[1], "BEGIN IMMEDIATE; INSERT INTO t VALUES(2); COMMIT;"), SQLITE_OK);
  EXPECT_EQ(KillSimVfsProcess("no-such-process").code(), StatusCode::kNotFound);
}

TEST(SimVfsLockTest, AMachineCrashLeavesNoLocksInTheWorldAfter) {
  TwoProcesses w;
  ASSERT_EQ(Exec(w.dbs[0], "BEGIN EXCLUSIVE; INSERT INTO t VALUES(2);"), SQLITE_OK);
  EXPECT_EQ(Exec(w.dbs[1], "BEGIN"), SQLITE_OK);
  int rc = 0;
  EXPECT_EQ(CountRows(w.dbs[1], &rc), -1);
  EXPECT_EQ(rc, SQLITE_BUSY) << "EXCLUSIVE keeps readers out";
  Exec(w.dbs[1], "ROLLBACK");
  for (DeathKind kind : {DeathKind::kCrash, DeathKind::kPowerLoss}) {
    auto after = w.fs->CrashClone(kind, 3);
    ASSERT_TRUE(RegisterSimVfs("after", after.get(), 1).ok());
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(kDbPath, &db, SQLITE_OPEN_READWRITE, "after"), SQLITE_OK);
    EXPECT_EQ(Exec(db, "BEGIN EXCLUSIVE; INSERT INTO t VALUES(5); COMMIT;"), SQLITE_OK)
        << DeathKindName(kind);
    // (A power loss may also lose the setup's last commit: synchronous=FULL's DELETE-mode hole.)
    if (kind == DeathKind::kCrash) {
      EXPECT_EQ(CountRows(db, &rc), 2);
    }
    sqlite3_close_v2(db);
    UnregisterSimVfs("after");
  }
}

}  // namespace
}  // namespace stepfault::faults
