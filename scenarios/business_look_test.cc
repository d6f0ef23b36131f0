// Goal: an oracle's look (LookOnce) never changes the world it checks: a look at a database with a
// hot journal sees the rolled-back database, yet the world keeps its hot journal and its digest,
// and a look at a missing database creates nothing; every look is then a pure function of the
// files' bytes, so a second look at the same bytes is answered without running, and any changed
// byte of the database's files runs it again.
// Method: a simulated world (SimFs) with a real SQLite database written through a SimVfs; the hot
// journal comes from a process killed (KillSimVfsProcess) in the middle of a transaction that had
// spilled pages to the database. The looks open SQLite through the copy's VFS they are given, as
// the scenarios' looks do. Each case uses its own salt, so kept looks of other cases never match.
// Checked to fail when broken: registering the copy's VFS over the world instead of the copy
// (DatabaseCopy::Make) fails WorldWithAHotJournal... (the digest changes and the journal is gone).
#include "scenarios/business_look.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <string>

#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"

namespace stepfault::scenarios {
namespace {

constexpr char kDb[] = "/w/business.db";
constexpr char kJournal[] = "/w/business.db-journal";

// Runs `sql` on a connection to kDb through `vfs`; the first column of the last row, or the error.
std::string Sql(const std::string& vfs, const std::string& sql, int flags = SQLITE_OPEN_READWRITE) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(kDb, &db, flags, vfs.c_str()) != SQLITE_OK) {
    std::string err = std::string("open: ") + sqlite3_errmsg(db);
    sqlite3_close(db);
    return err;
  }
  std::string last;
  const char* next = sql.c_str();
  int rc = SQLITE_DONE;
  while (rc == SQLITE_DONE && *next != '\0') {  // every statement of `sql`, in order
    sqlite3_stmt* stmt = nullptr;
    rc = sqlite3_prepare_v2(db, next, -1, &stmt, &next);
    if (stmt == nullptr) break;  // trailing white space
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      const unsigned char* v = sqlite3_column_text(stmt, 0);
      last = v ? reinterpret_cast<const char*>(v) : "NULL";
      rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
  }
  if (rc != SQLITE_DONE && rc != SQLITE_OK) last = std::string("error: ") + sqlite3_errmsg(db);
  sqlite3_close(db);
  return last;
}

class LookOnceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs_.CreateDirIfMissing("/w").ok());
    ASSERT_TRUE(faults::RegisterSimVfs(kWorldVfs, &fs_, 1).ok());
  }
  void TearDown() override { faults::UnregisterSimVfs(kWorldVfs); }

  // A committed table T holding one row, then a transaction that inserted (and spilled to the
  // database) many more rows, left hot by a process that died before committing it.
  void MakeHotJournal() {
    SCOPED_TRACE("MakeHotJournal");
    ASSERT_EQ(Sql(kWorldVfs,
                  "PRAGMA journal_mode=DELETE; CREATE TABLE T(x); INSERT INTO T "
                  "VALUES(zeroblob(10));",
                  SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE),
              "delete");
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(kDb, &db, SQLITE_OPEN_READWRITE, kWorldVfs), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "PRAGMA cache_size=2; BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
                           "SELECT i+1 FROM n WHERE i<300) INSERT INTO T SELECT zeroblob(900) "
                           "FROM n; UPDATE T SET x=zeroblob(901);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    ASSERT_TRUE(faults::KillSimVfsProcess(kWorldVfs).ok());
    sqlite3_close_v2(db);
    faults::UnregisterSimVfs(kWorldVfs);  // a dead process's name is gone; a fresh one for later
    ASSERT_TRUE(faults::RegisterSimVfs(kWorldVfs, &fs_, 1).ok());
    ASSERT_TRUE(fs_.FileExists(kJournal).value()) << "the transaction must have left a journal";
  }

  // A look that counts its runs and returns the row count SQLite reads through the copy.
  std::string Look(const std::string& salt) {
    return LookOnce<std::string>(&fs_, kDb, salt, [this](const Result<std::string>& vfs) {
      ++runs_;
      return vfs.ok() ? Sql(*vfs, "SELECT count(*) FROM T") : vfs.status().ToString();
    });
  }

  static constexpr char kWorldVfs[] = "look-test-world";
  faults::SimFs fs_;
  int runs_ = 0;
};

TEST_F(LookOnceTest, WorldWithAHotJournalIsUnchangedByALookThatSeesItRolledBack) {
  ASSERT_NO_FATAL_FAILURE(MakeHotJournal());
  const std::string digest = fs_.Digest();
  EXPECT_EQ(Look("hot-journal"), "1") << "the look sees the database as a recovering host would";
  EXPECT_EQ(fs_.Digest(), digest) << "the look changed the world it checks";
  EXPECT_TRUE(fs_.FileExists(kJournal).value()) << "the world's hot journal was rolled back";
  EXPECT_EQ(Look("hot-journal"), "1");
  EXPECT_EQ(runs_, 1) << "a look that changes nothing is kept, even at a hot journal";
  // The host's own open (the next life) still meets the hot journal and rolls it back itself.
  EXPECT_EQ(Sql(kWorldVfs, "SELECT count(*) FROM T"), "1");
  EXPECT_FALSE(fs_.FileExists(kJournal).value());
}

TEST_F(LookOnceTest, ALookAtAMissingDatabaseCreatesNothing) {
  const std::string digest = fs_.Digest();
  EXPECT_EQ(LookOnce<std::string>(&fs_, kDb, "missing",
                                  [](const Result<std::string>& vfs) {
                                    // What a careless look does: open with SQLITE_OPEN_CREATE.
                                    return Sql(*vfs, "CREATE TABLE T(x); SELECT 7",
                                               SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
                                  }),
            "7")
      << "the look ran, on its copy";
  EXPECT_FALSE(fs_.FileExists(kDb).value()) << "a look created the database in the world";
  EXPECT_EQ(fs_.Digest(), digest);
}

TEST_F(LookOnceTest, ASecondLookAtTheSameBytesIsAnsweredWithoutRunning) {
  ASSERT_EQ(Sql(kWorldVfs, "CREATE TABLE T(x); INSERT INTO T VALUES(1);",
                SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE),
            "");
  EXPECT_EQ(Look("same-bytes"), "1");
  EXPECT_EQ(Look("same-bytes"), "1");
  EXPECT_EQ(runs_, 1);
  EXPECT_EQ(Look("same-bytes, another salt"), "1");
  EXPECT_EQ(runs_, 2) << "the salt is part of the key";
}

TEST_F(LookOnceTest, AnyChangedByteOfTheDatabaseOrAJournalBesideItRunsTheLookAgain) {
  ASSERT_EQ(Sql(kWorldVfs, "CREATE TABLE T(x); INSERT INTO T VALUES(1);",
                SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE),
            "");
  EXPECT_EQ(Look("changed"), "1");
  ASSERT_EQ(Sql(kWorldVfs, "INSERT INTO T VALUES(2);"), "");
  EXPECT_EQ(Look("changed"), "2");
  EXPECT_EQ(runs_, 2);
  auto journal = fs_.NewWritableFile(kJournal);  // not hot (no valid header): SQLite ignores it
  ASSERT_TRUE(journal.ok());
  ASSERT_TRUE((*journal)->Close().ok());
  EXPECT_EQ(Look("changed"), "2");
  EXPECT_EQ(runs_, 3) << "a journal beside the database is part of what the look reads";
  auto other = fs_.NewWritableFile("/w/unrelated.db");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->Close().ok());
  EXPECT_EQ(Look("changed"), "2");
  EXPECT_EQ(runs_, 3) << "files of other names are not";
}

}  // namespace
}  // namespace stepfault::scenarios
