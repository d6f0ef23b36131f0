// SqliteCheckpointStore beyond the conformance suite: schema and pragmas, ownership, the row
// checksum, and recovery from damaged database, -wal and -journal files.
// Method: real files on PosixEnv. The WAL is damaged in a crash image: the db and its -wal copied
// while the store is open (a crash leaves exactly that). After damage the reopened store must give
// a typed error or a prefix of the committed checkpoints with exact bytes; never wrong bytes.
#include "engine/stores/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"
#include "engine/stores/delta_chain_test_util.h"
#include "tools/testing/test_env.h"

namespace stepfault {
namespace {

namespace fs = std::filesystem;

std::string Doc(int n) {
  return nlohmann::json{{"n", n}, {"blob", std::string(300, 'a' + n % 26)}}.dump();
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void WriteAll(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

bool Typed(StatusCode code) {
  return code == StatusCode::kCorruption || code == StatusCode::kNotFound ||
         code == StatusCode::kIOError;
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test_env::ScratchDir("sqlite-store");
    db_ = (root_ / "checkpoints.db").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  Result<std::unique_ptr<SqliteCheckpointStore>> TryOpen(const std::string& path,
                                                         const std::string& mode = "WAL") {
    return SqliteCheckpointStore::Open(PosixEnv(), path, {.journal_mode = mode});
  }
  std::vector<CheckpointInfo> CommitChain(CheckpointStore& store, int count) {
    std::vector<CheckpointInfo> infos;
    for (int i = 0; i < count; ++i) {
      std::optional<CheckpointInfo> parent;
      if (!infos.empty()) parent = infos.back();
      auto info = store.Commit("s", Doc(i), parent);
      EXPECT_TRUE(info.ok()) << info.status().ToString();
      if (info.ok()) infos.push_back(*info);
    }
    return infos;
  }
  // Opens `path` and checks the documented outcome: a typed error, or a store whose index is a
  // subsequence of `infos` (a prefix when `prefix`) and whose every checkpoint either has the exact
  // committed bytes or gives a typed error.
  void ExpectTypedErrorOrExactPrefix(const std::string& path,
                                     const std::vector<CheckpointInfo>& infos,
                                     const std::string& what, bool prefix = false) {
    auto store = TryOpen(path);
    if (!store.ok()) {
      EXPECT_TRUE(Typed(store.status().code())) << what << ": " << store.status().ToString();
      return;
    }
    auto index = (*store)->Index("s");
    if (!index.ok()) {
      EXPECT_TRUE(Typed(index.status().code())) << what << ": " << index.status().ToString();
      return;
    }
    ASSERT_LE(index->size(), infos.size()) << what;
    size_t next = 0;
    for (const StoreEntry& e : *index) {
      while (next < infos.size() && infos[next] != e.info) ++next;
      ASSERT_LT(next, infos.size())
          << what << ": listed " << e.info.ToString() << " out of order or never committed";
      if (prefix) {
        EXPECT_EQ(&e - index->data(), static_cast<std::ptrdiff_t>(next)) << what;
      }
      ++next;
    }
    for (size_t i = 0; i < infos.size(); ++i) {
      auto r = (*store)->Retrieve(infos[i]);
      if (r.ok()) {
        EXPECT_EQ(*r, Doc(static_cast<int>(i))) << what << ": wrong bytes loaded silently";
      } else {
        EXPECT_TRUE(Typed(r.status().code())) << what << ": " << r.status().ToString();
      }
    }
  }

  fs::path root_;
  std::string db_;
};

TEST_F(SqliteStoreTest, TableHasTheDocumentedColumnsAndWalPersists) {
  {
    auto store = TryOpen(db_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    CommitChain(**store, 2);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  std::vector<std::string> columns;
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('checkpoints') ORDER BY cid",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  }
  sqlite3_finalize(stmt);
  EXPECT_EQ(columns, (std::vector<std::string>{"seq", "session_id", "checkpoint_id",
                                               "parent_checkpoint_id", "body", "checksum"}));
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))), "wal");
  sqlite3_finalize(stmt);
  ASSERT_EQ(sqlite3_prepare_v2(
                db, "SELECT parent_checkpoint_id IS NULL, checksum FROM checkpoints ORDER BY seq",
                -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 1) << "a root has a NULL parent";
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)))
                .rfind("row2:crc32c:", 0),
            0u);
  sqlite3_finalize(stmt);
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), SqliteStoreOptions{}.page_size);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(SqliteStoreTest, SecondStoreOnTheSameDatabaseIsRefusedWithBusy) {
  auto first = TryOpen(db_);
  ASSERT_TRUE(first.ok());
  auto second = TryOpen(db_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kBusy);
  EXPECT_NE(second.status().message().find("is in use by another store"), std::string::npos);
  first = Status::Cancelled("closed");  // destroys the first store
  EXPECT_TRUE(TryOpen(db_).ok());
}

TEST_F(SqliteStoreTest, UnknownJournalModeIsInvalidArgument) {
  EXPECT_EQ(TryOpen(db_, "MEMORY; DROP TABLE x").status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(TryOpen(db_, "delete").ok()) << "modes are case-insensitive";
}

TEST_F(SqliteStoreTest, UnknownVfsNameIsInvalidArgument) {
  auto store = SqliteCheckpointStore::Open(PosixEnv(), db_, {.vfs_name = "no-such-vfs"});
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument) << store.status().ToString();
  EXPECT_FALSE(fs::exists(db_));
}

TEST_F(SqliteStoreTest, ErrorsMapToTypedStatusWithSqlitesMessage) {
  auto missing_dir = TryOpen((root_ / "no" / "such" / "dir.db").string());
  ASSERT_FALSE(missing_dir.ok());
  EXPECT_TRUE(missing_dir.status().code() == StatusCode::kIOError ||
              missing_dir.status().code() == StatusCode::kNotFound)
      << missing_dir.status().ToString();
  std::string garbage;
  for (int i = 0; i < 100; ++i) garbage += "this is not a database. ";
  WriteAll(db_, garbage);
  auto not_a_db = TryOpen(db_);
  ASSERT_FALSE(not_a_db.ok());
  EXPECT_EQ(not_a_db.status().code(), StatusCode::kCorruption) << not_a_db.status().ToString();
  EXPECT_NE(not_a_db.status().message().find("not a database"), std::string::npos);
}

TEST_F(SqliteStoreTest, RowWhoseBodyNoLongerMatchesItsChecksumIsCorruption) {
  std::vector<CheckpointInfo> infos;
  {
    auto store = TryOpen(db_);
    ASSERT_TRUE(store.ok());
    infos = CommitChain(**store, 3);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE checkpoints SET body = '{\"n\":99}' WHERE seq = 2", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE checkpoints SET parent_checkpoint_id = NULL WHERE seq = 3",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = TryOpen(db_);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->Retrieve(infos[0]).value(), Doc(0));
  EXPECT_EQ((*store)->Retrieve(infos[1]).status().code(), StatusCode::kCorruption);
  EXPECT_EQ((*store)->Retrieve(infos[2]).status().code(), StatusCode::kCorruption)
      << "the checksum covers the parent link too";
}

// Rows written before the version-2 row seal (a CRC32C of the JSON array of the columns) still
// verify; a new row gets the version-2 seal and a framed checkpoint is kept byte for byte.
TEST_F(SqliteStoreTest, RowsSealedByThePreviousVersionStillVerify) {
  std::vector<CheckpointInfo> infos;
  {
    auto store = TryOpen(db_);
    ASSERT_TRUE(store.ok());
    infos = CommitChain(**store, 2);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  const std::string v1 = Crc32cTag(
      nlohmann::json::array({2, "s", infos[1].checkpoint_id, infos[0].checkpoint_id, Doc(1)})
          .dump());
  const std::string update = "UPDATE checkpoints SET checksum = '" + v1 + "' WHERE seq = 2";
  ASSERT_EQ(sqlite3_exec(db, update.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = TryOpen(db_);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->Retrieve(infos[1]).value(), Doc(1));
  EXPECT_EQ((*store)->Index("s")->size(), 2u);
  Checkpoint c;
  c.session_id = "s";
  c.workflow = nlohmann::json::object();
  c.state["executor:a"]["x"] = std::string(100000, 'z');
  const std::string framed = EncodeCheckpoint(c);
  auto info = (*store)->Commit("s", framed, infos[1]);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ((*store)->Retrieve(*info).value(), framed);
}

// Commit takes a framed body's CRC from the body's own seal (committed_crc.h): a body that
// disagrees with its seal gives a row that fails its check (not listed, kCorruption on Retrieve),
// in this life and after a reopen; an intact row beside it still reads.
TEST_F(SqliteStoreTest, FramedBodyThatDisagreesWithItsSealIsNeverReadAsACheckpoint) {
  const auto [intact, damaged] = testing::FramedCheckpointAndSealBreak(100000);
  CheckpointInfo good, bad;
  for (int life = 0; life < 2; ++life) {
    auto store = TryOpen(db_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    if (life == 0) {
      auto g = (*store)->Commit("s", intact, std::nullopt);
      ASSERT_TRUE(g.ok()) << g.status().ToString();
      auto b = (*store)->Commit("s", damaged, *g);
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      good = *g;
      bad = *b;
    }
    EXPECT_EQ((*store)->Retrieve(bad).status().code(), StatusCode::kCorruption) << life;
    EXPECT_EQ((*store)->Retrieve(good).value(), intact) << life;
    auto index = (*store)->Index("s");
    ASSERT_TRUE(index.ok());
    ASSERT_EQ(index->size(), 1u) << life;
    EXPECT_EQ((*index)[0].info, good);
  }
}

TEST_F(SqliteStoreTest, DamagedDatabaseFileGivesTypedErrorOrExactBytes) {
  std::vector<CheckpointInfo> infos;
  {
    auto store = TryOpen(db_);
    ASSERT_TRUE(store.ok());
    infos = CommitChain(**store, 4);
  }
  const std::string original = ReadAll(db_);
  ASSERT_GT(original.size(), 4096u);
  std::vector<size_t> offsets;
  for (size_t i = 0; i < 100; ++i) offsets.push_back(i);  // the header
  for (size_t i = 100; i < original.size(); i += 97) offsets.push_back(i);
  for (size_t offset : offsets) {
    std::string flipped = original;
    flipped[offset] = static_cast<char>(flipped[offset] ^ 0x01);
    WriteAll(db_, flipped);
    ExpectTypedErrorOrExactPrefix(db_, infos, "flip byte " + std::to_string(offset));
    fs::remove(db_ + "-wal");
  }
  for (size_t len : {size_t{100}, original.size() / 2, original.size() - 1}) {
    WriteAll(db_, original.substr(0, len));
    ExpectTypedErrorOrExactPrefix(db_, infos, "truncate to " + std::to_string(len));
    fs::remove(db_ + "-wal");
  }
  // Documented SQLite behaviour: an empty file is an empty database, so the store opens empty.
  WriteAll(db_, "");
  auto empty = TryOpen(db_);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE((*empty)->Index("s")->empty());
}

TEST_F(SqliteStoreTest, DamagedWalInACrashImageGivesAPrefixWithExactBytesOrATypedError) {
  const fs::path image = root_ / "image";
  fs::create_directories(image);
  const std::string image_db = (image / "checkpoints.db").string();
  std::vector<CheckpointInfo> infos;
  std::string db_bytes, wal_bytes;
  {
    auto store = TryOpen(db_);
    ASSERT_TRUE(store.ok());
    infos = CommitChain(**store, 4);
    // The files as a crash would leave them: the commits live in the -wal only.
    db_bytes = ReadAll(db_);
    wal_bytes = ReadAll(db_ + "-wal");
  }
  ASSERT_FALSE(wal_bytes.empty());
  auto with_wal = [&](const std::string& wal) {
    fs::remove(image_db + "-wal");
    WriteAll(image_db, db_bytes);
    WriteAll(image_db + "-wal", wal);
  };
  with_wal(wal_bytes);
  {
    auto store = TryOpen(image_db);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_EQ((*store)->Index("s")->size(), infos.size()) << "the undamaged image recovers all";
  }
  for (size_t len : {size_t{0}, size_t{16}, size_t{32}, wal_bytes.size() / 3, wal_bytes.size() / 2,
                     wal_bytes.size() - 1}) {
    with_wal(wal_bytes.substr(0, len));
    ExpectTypedErrorOrExactPrefix(image_db, infos, "wal truncated to " + std::to_string(len),
                                  /*prefix=*/true);
  }
  // WAL header fields, the first frame header, then a stride through the frames.
  std::vector<size_t> offsets = {0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52};
  for (size_t offset = 64; offset < wal_bytes.size(); offset += 1009) offsets.push_back(offset);
  for (size_t offset : offsets) {
    std::string flipped = wal_bytes;
    flipped[offset] = static_cast<char>(flipped[offset] ^ 0x01);
    with_wal(flipped);
    ExpectTypedErrorOrExactPrefix(image_db, infos, "wal flip " + std::to_string(offset),
                                  /*prefix=*/true);
  }
}

TEST_F(SqliteStoreTest, DeleteModeIgnoresAGarbageOrEmptyJournal) {
  std::vector<CheckpointInfo> infos;
  {
    auto store = TryOpen(db_, "DELETE");
    ASSERT_TRUE(store.ok());
    infos = CommitChain(**store, 3);
  }
  ASSERT_FALSE(fs::exists(db_ + "-journal"));
  for (const std::string& journal :
       {std::string(), std::string(600, 'j'),
        std::string("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7") + std::string(600, '\0')}) {
    WriteAll(db_ + "-journal", journal);
    auto store = SqliteCheckpointStore::Open(PosixEnv(), db_, {.journal_mode = "DELETE"});
    if (!store.ok()) {
      EXPECT_TRUE(Typed(store.status().code())) << store.status().ToString();
      continue;
    }
    for (size_t i = 0; i < infos.size(); ++i) {
      auto r = (*store)->Retrieve(infos[i]);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(*r, Doc(static_cast<int>(i)));
    }
  }
}

// A damaged base of a kept delta (incremental checkpoints, K = 3: c0 full, c1 c2 deltas, c3 full,
// c4 c5 deltas). The row of c4 (the base of c5) or of c3 (the full snapshot under c4 and c5) has
// its body truncated, a byte of its body flipped, or is deleted, through SQLite between lives:
// restoring c5 is kCorruption naming the broken link, and the host's fallback goes past every
// checkpoint of the broken chain to the newest one whose chain is intact, with exactly the
// committed content.
TEST_F(SqliteStoreTest, DamagedBaseOfAKeptDeltaIsCorruptionNamingTheLinkAndTheFallbackPassesIt) {
  const std::vector<std::string> damages = {
      "UPDATE checkpoints SET body = substr(body, 1, length(body) / 2) WHERE seq = ?1",
      // One character of the body changed (the framing's header line is ASCII).
      "UPDATE checkpoints SET body = substr(body, 1, 10) || "
      "(CASE substr(body, 11, 1) WHEN 'x' THEN 'y' ELSE 'x' END) || substr(body, 12) WHERE seq = "
      "?1",
      "DELETE FROM checkpoints WHERE seq = ?1"};
  int fresh = 0;
  for (const testing::DamagedBaseCase& k : testing::kDamagedBaseCases) {
    for (const std::string& sql : damages) {
      const std::string label = "c" + std::to_string(k.victim) + ": " + sql.substr(0, 30);
      // A fresh database per damage (ids are a pure function of seed, session and sequence, so
      // every chain is the same).
      const std::string path = (root_ / ("chain-" + std::to_string(++fresh) + ".db")).string();
      testing::DeltaChain chain;
      {
        auto store = TryOpen(path);
        ASSERT_TRUE(store.ok()) << store.status().ToString();
        chain = testing::CommitDeltaChain(**store, 6);
      }
      ASSERT_EQ(chain.infos.size(), 6u);
      {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        sqlite3_stmt* stmt = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << label;
        sqlite3_bind_int64(stmt, 1, k.victim + 1);  // seq counts from 1
        EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE) << label;
        EXPECT_EQ(sqlite3_changes(db), 1) << label;
        sqlite3_finalize(stmt);
        sqlite3_close(db);
      }
      auto store = TryOpen(path);
      ASSERT_TRUE(store.ok()) << label << ": " << store.status().ToString();
      testing::ExpectDamagedBaseFailsTypedAndFallbackLands(**store, chain, k, label);
    }
  }
}

TEST_F(SqliteStoreTest, RepeatedCallsPrepareNoStatementAgain) {
  auto store = TryOpen(db_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::vector<CheckpointInfo> infos = CommitChain(**store, 2);
  ASSERT_EQ(infos.size(), 2u);
  ASSERT_TRUE((*store)->Retrieve(infos[0]).ok());
  ASSERT_TRUE((*store)->Index("s").ok());
  ASSERT_TRUE((*store)->Rows().ok());
  const uint64_t prepared = (*store)->StatementsPreparedForTesting();
  // Each SQL text was prepared once on this connection; the same calls again prepare nothing.
  infos = CommitChain(**store, 3);
  ASSERT_EQ(infos.size(), 3u);
  EXPECT_EQ((*store)->Retrieve(infos[2]).value(), Doc(2));
  EXPECT_EQ((*store)->Retrieve(CheckpointInfo{"s", "missing"}).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ((*store)->Index("s")->size(), 5u);
  EXPECT_EQ((*store)->Rows()->size(), 5u);
  EXPECT_EQ((*store)->StatementsPreparedForTesting(), prepared);
}

TEST_F(SqliteStoreTest, RowsJudgesAVersionOneSealAsIndexDoes) {
  CheckpointInfo info;
  {
    auto store = TryOpen(db_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    info = CommitChain(**store, 1).at(0);
  }
  // Re-seal the row the way version 1 did: the CRC32C of the JSON array of its columns.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT seq, body FROM checkpoints", -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  const int64_t seq = sqlite3_column_int64(stmt, 0);
  const std::string body(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)));
  sqlite3_finalize(stmt);
  const std::string v1 =
      Crc32cTag(nlohmann::json::array({seq, "s", info.checkpoint_id, nullptr, body}).dump());
  ASSERT_EQ(sqlite3_exec(db, ("UPDATE checkpoints SET checksum = '" + v1 + "'").c_str(), nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = TryOpen(db_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_EQ((*store)->Index("s")->size(), 1u) << "the version 1 seal holds";
  auto rows = (*store)->Rows();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->at(0).checksum, v1);
  EXPECT_TRUE(rows->at(0).intact) << "the oracles' read must agree with Index";
}

}  // namespace
}  // namespace stepfault
