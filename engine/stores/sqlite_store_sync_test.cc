// How often one SqliteCheckpointStore commit syncs each file, in every journal mode the store
// accepts: the cost model behind the journal-mode choice (docs/performance.md, "The SQLite store").
// A commit of a checkpoint larger than SQLite's page cache (a 3 MB row: 48 pages of 64 KB, the
// cache holds about 31) syncs the WAL once in WAL mode, and in a rollback-journal mode the journal
// three times (its records, its header, its invalidation) and the database once. Were the store to
// let SQLite spill the cache in the middle of the insert, each spill would sync the journal twice
// more before it may overwrite the database (five journal syncs: checked by removing
// `PRAGMA cache_spill=OFF` from the store, which fails the rollback-mode cases).
// CommitParts (the zero-filled row written through incremental blob I/O) syncs exactly as Commit.
// The store's wal_autocheckpoint_pages option reaches SQLite (the checkpoint's syncs follow a
// commit past the interval).
// Method: real files; the store opens them through a pass-through VFS (sqlite_shim_vfs_test_util.h)
// over the default one, which counts xSync by the kind of file SQLite opened (database, journal,
// WAL).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/checkpoint.h"
#include "engine/stores/sqlite_shim_vfs_test_util.h"
#include "engine/stores/sqlite_store.h"
#include "tools/testing/test_env.h"

namespace stepfault {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCountingVfs = "stepfault-sync-counting";

// Syncs per kind of file since the last Reset. Tests run single-threaded.
std::map<std::string, int>& SyncCounts() {
  static auto* counts = new std::map<std::string, int>();
  return *counts;
}

void RegisterCountingVfs() {
  ASSERT_TRUE(test_util::RegisterShimVfs(kCountingVfs, {.before_sync = [](const char* kind) {
                                           ++SyncCounts()[kind];
                                           return SQLITE_OK;
                                         }}));
}

std::string BigDoc(int n, size_t bytes) {
  return nlohmann::json{{"n", n}, {"blob", std::string(bytes, static_cast<char>('a' + n))}}.dump();
}

class SqliteStoreSyncTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    RegisterCountingVfs();
    root_ = test_env::ScratchDir("sqlite-sync");
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
};

TEST_P(SqliteStoreSyncTest, ACommitLargerThanThePageCacheSyncsEachFileAsOftenAsItsModeNeeds) {
  auto store = SqliteCheckpointStore::Open(
      PosixEnv(), (root_ / "checkpoints.db").string(),
      {.vfs_name = kCountingVfs, .journal_mode = GetParam(), .seed = 3});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  constexpr size_t kBytes = 3 << 20;  // 48 pages of 64 KB; the default cache holds about 31
  // The first commit creates the journal or WAL (its first sync also syncs the directory).
  auto first = (*store)->Commit("s", BigDoc(0, kBytes), std::nullopt);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  SyncCounts().clear();
  auto second = (*store)->Commit("s", BigDoc(1, kBytes), *first);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  const std::map<std::string, int> expected =
      GetParam() == "WAL" ? std::map<std::string, int>{{"wal", 1}}
                          : std::map<std::string, int>{{"db", 1}, {"journal", 3}};
  EXPECT_EQ(SyncCounts(), expected);
  // The bytes are the ones committed.
  auto back = (*store)->Retrieve(*second);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, BigDoc(1, kBytes));
  // A framed checkpoint handed over as parts (the zero-filled row, then its bytes written into
  // it) syncs exactly as often.
  Checkpoint c;
  c.session_id = "s";
  c.workflow = nlohmann::json::object();
  for (int i = 0; i < 48; ++i)
    c.state["executor:a"]["k" + std::to_string(i)] =
        std::string(65536, static_cast<char>('a' + i % 26));
  const EncodedCheckpoint encoded = EncodeCheckpointParts(c);
  SyncCounts().clear();
  auto third = (*store)->CommitParts("s", encoded.Parts(), *second);
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(SyncCounts(), expected);
  EXPECT_EQ((*store)->Retrieve(*third).value(), encoded.Join());
}

// wal_autocheckpoint_pages reaches SQLite: with an interval of 16 pages, every 48-page commit is
// followed by the automatic checkpoint, so the second commit restarts the WAL the first one's
// checkpoint emptied (its new header synced), commits (synced) and checkpoints (the WAL synced
// again, then the database); with SQLite's default of 1,000 pages the same commit syncs the WAL
// once (the WAL case above).
TEST(SqliteStoreWalAutocheckpointTest, ACommitPastTheIntervalIsFollowedByTheCheckpoint) {
  RegisterCountingVfs();
  const fs::path root = test_env::ScratchDir("sqlite-autockpt");
  {
    auto store = SqliteCheckpointStore::Open(
        PosixEnv(), (root / "checkpoints.db").string(),
        {.vfs_name = kCountingVfs, .seed = 3, .wal_autocheckpoint_pages = 16});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto first = (*store)->Commit("s", BigDoc(0, 3 << 20), std::nullopt);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    SyncCounts().clear();
    auto second = (*store)->Commit("s", BigDoc(1, 3 << 20), *first);
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    EXPECT_EQ(SyncCounts(), (std::map<std::string, int>{{"db", 1}, {"wal", 3}}));
  }
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Stepfault, SqliteStoreSyncTest,
                         ::testing::Values("WAL", "PERSIST", "DELETE", "TRUNCATE"));

}  // namespace
}  // namespace stepfault
