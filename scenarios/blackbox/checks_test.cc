// Goal: black-box mode's SQL look (QueryRows, behind sql_checks and the integrity check) sees a
// database as the program's next open would (a hot journal rolled back) without changing the
// directory under test: the hot journal and every byte stay as the program left them, so the
// stray-file check and any later life still meet them.
// Method: a real SQLite database on disk with one committed row; while a second connection holds an
// open transaction that spilled 300 rows into the database file, its files are copied aside: the
// copy is the directory a death at that moment leaves (database plus hot journal, no lock). Then
// QueryRows on the copy, and its files compared byte for byte before and after.
// Checked to fail when broken: QueryRows opening `db_path` itself (main's behaviour) rolls the
// journal back in place, and HotJournalIsLeftInPlace fails (journal gone, database bytes changed).
#include "scenarios/blackbox/checks.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "tools/testing/test_env.h"

namespace stepfault::scenarios::blackbox {
namespace {

namespace fs = std::filesystem;

std::map<std::string, std::string> FilesOf(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    out[e.path().filename().string()] =
        std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return out;
}

class QueryRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test_env::ScratchDir("checks");
    fs::create_directories(root_ / "live");
    fs::create_directories(root_ / "dead");
  }
  void TearDown() override { fs::remove_all(root_); }

  // root_/dead holds app.db and its hot journal: one committed row, 300 uncommitted ones.
  void MakeHotJournal() {
    const std::string live = (root_ / "live" / "app.db").string();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(live.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "PRAGMA journal_mode=DELETE; CREATE TABLE T(x); INSERT INTO T "
                           "VALUES(1); PRAGMA cache_size=2; BEGIN; WITH RECURSIVE n(i) AS "
                           "(SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<300) INSERT INTO T "
                           "SELECT zeroblob(900) FROM n;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    for (const fs::directory_entry& e : fs::directory_iterator(root_ / "live"))
      fs::copy_file(e.path(), root_ / "dead" / e.path().filename());
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    ASSERT_TRUE(fs::exists(root_ / "dead" / "app.db-journal"));
  }

  fs::path root_;
};

TEST_F(QueryRowsTest, HotJournalIsLeftInPlace) {
  ASSERT_NO_FATAL_FAILURE(MakeHotJournal());
  const std::map<std::string, std::string> before = FilesOf(root_ / "dead");
  Result<std::vector<std::string>> rows =
      QueryRows((root_ / "dead" / "app.db").string(), "SELECT count(*) FROM T");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<std::string>{"1"}) << "the look sees the journal rolled back";
  EXPECT_TRUE(fs::exists(root_ / "dead" / "app.db-journal")) << "the look rolled back in place";
  EXPECT_TRUE(FilesOf(root_ / "dead") == before) << "the look changed the directory under test";
}

TEST_F(QueryRowsTest, AMissingDatabaseIsAnErrorAndIsNotCreated) {
  Result<std::vector<std::string>> rows =
      QueryRows((root_ / "dead" / "app.db").string(), "SELECT 1");
  EXPECT_FALSE(rows.ok());
  EXPECT_TRUE(fs::is_empty(root_ / "dead"));
}

}  // namespace
}  // namespace stepfault::scenarios::blackbox
