// SqliteCheckpointStore::CommitParts (the blob path): the row it stores for a checkpoint handed
// over as parts is the row Commit stores for the joined bytes, wherever the parts are cut, and its
// seal verifies against the bytes themselves; a commit whose write or sync fails leaves no row and
// the store usable; rows whose body and seal are TEXT (written before the blob path) and BLOB
// (written since) read alike; the manager's call reaches the store's own CommitParts (compile-time
// check); and the body is never copied into a record in SQLite's memory.
// Method: real files on PosixEnv. Rows are compared column by column (typeof and bytes) through a
// second connection once the store is closed. I/O failures come from a pass-through VFS
// (sqlite_shim_vfs_test_util.h) over the default one that fails the n-th xWrite or xSync after
// it is armed, for every n a commit reaches. The record copy shows in SQLite's own memory
// high-water mark (SQLITE_STATUS_MEMORY_USED): the zero-filled row holds the body once, in its
// pages; binding the body as a value holds it twice (the record, then the pages).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"
#include "engine/stores/sqlite_shim_vfs_test_util.h"
#include "engine/stores/sqlite_store.h"
#include "tools/testing/test_env.h"

namespace stepfault {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFailingVfs = "stepfault-parts-failing";

// The failure plan: when armed, the `fail_at`-th xWrite/xSync from then on fails (once).
struct FailPlan {
  bool armed = false;
  int fail_at = 0;
  int seen = 0;
  bool fired = false;
  bool fired_on_sync = false;  // the failure was an xSync's (else an xWrite's)
};
FailPlan& Plan() {
  static auto* plan = new FailPlan();
  return *plan;
}
bool FailNow(bool sync) {
  FailPlan& p = Plan();
  if (!p.armed || p.fired) return false;
  if (++p.seen < p.fail_at) return false;
  p.fired = true;
  p.fired_on_sync = sync;
  return true;
}

void RegisterFailingVfs() {
  ASSERT_TRUE(test_util::RegisterShimVfs(
      kFailingVfs,
      {.before_write = [](const char*) { return FailNow(false) ? SQLITE_IOERR_WRITE : SQLITE_OK; },
       .before_sync = [](const char*) { return FailNow(true) ? SQLITE_IOERR_FSYNC : SQLITE_OK; }}));
}

// A framed checkpoint of about `bytes` bytes in many parts (head, one per value, trailer).
Checkpoint Big(int n, size_t bytes) {
  Checkpoint c;
  c.session_id = "s";
  c.step_number = n;
  c.workflow = nlohmann::json::object();
  for (size_t i = 0; i * 4000 < bytes; ++i) {
    c.state["executor:a"]["k" + std::to_string(i)] =
        std::string(4000, static_cast<char>('a' + (i + static_cast<size_t>(n)) % 26));
  }
  return c;
}

// `bytes` as parts of `size` bytes (the last shorter).
std::vector<std::string_view> CutEvery(std::string_view bytes, size_t size) {
  std::vector<std::string_view> parts;
  for (size_t at = 0; at < bytes.size(); at += size) parts.push_back(bytes.substr(at, size));
  return parts;
}

// One stored row as a second connection sees it.
struct RawRow {
  int64_t seq = 0;
  std::string session_id, checkpoint_id, parent, body_type, body, checksum_type, checksum;
  friend bool operator==(const RawRow&, const RawRow&) = default;
  friend void PrintTo(const RawRow& r, std::ostream* os) {
    *os << "{seq " << r.seq << ", " << r.session_id << "/" << r.checkpoint_id << ", parent "
        << r.parent << ", body " << r.body_type << " of " << r.body.size() << " B (crc32c "
        << Crc32cTag(r.body) << "), checksum " << r.checksum_type << " " << r.checksum << "}";
  }
};

std::string Bytes(sqlite3_stmt* stmt, int column) {
  const void* data = sqlite3_column_blob(stmt, column);
  return data == nullptr ? std::string()
                         : std::string(static_cast<const char*>(data),
                                       static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
}

std::vector<RawRow> ReadRawRows(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db,
                               "SELECT seq, session_id, checkpoint_id,"
                               " COALESCE(parent_checkpoint_id, '<null>'), typeof(body), body,"
                               " typeof(checksum), checksum FROM checkpoints ORDER BY seq",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  std::vector<RawRow> rows;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    rows.push_back(RawRow{sqlite3_column_int64(stmt, 0), Bytes(stmt, 1), Bytes(stmt, 2),
                          Bytes(stmt, 3), Bytes(stmt, 4), Bytes(stmt, 5), Bytes(stmt, 6),
                          Bytes(stmt, 7)});
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

class SqliteStorePartsTest : public ::testing::Test {
 protected:
  void SetUp() override { root_ = test_env::ScratchDir("sqlite-parts"); }
  void TearDown() override {
    Plan() = FailPlan();
    fs::remove_all(root_);
  }
  std::unique_ptr<SqliteCheckpointStore> OpenStore(const std::string& name,
                                                   SqliteStoreOptions options = {.seed = 7}) {
    auto store = SqliteCheckpointStore::Open(PosixEnv(), (root_ / name).string(), options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  fs::path root_;
};

// The same checkpoints committed as parts (cut as the manager cuts them, whole, every 1,000
// bytes, with empty parts between, with an empty first part or a first part inside the framing
// magic, which take the joining path) and as joined bytes give the same rows, column for column;
// each reads back exactly and its seal verifies after a reopen.
TEST_F(SqliteStorePartsTest, CommitPartsStoresTheRowCommitStoresForTheJoinedBytesWhereverCut) {
  const Checkpoint c = Big(1, 300000);
  const EncodedCheckpoint encoded = EncodeCheckpointParts(c);
  const std::string joined = encoded.Join();
  std::vector<std::vector<std::string_view>> cuts;
  cuts.push_back(encoded.Parts());
  cuts.push_back({joined});
  cuts.push_back(CutEvery(joined, 1000));
  std::vector<std::string_view> with_empty;
  for (std::string_view p : CutEvery(joined, 777)) {
    with_empty.push_back(p);
    with_empty.push_back(std::string_view());
  }
  cuts.push_back(with_empty);
  std::vector<std::string_view> empty_first = {std::string_view()};
  empty_first.push_back(joined);
  cuts.push_back(empty_first);
  cuts.push_back({std::string_view(joined).substr(0, 3), std::string_view(joined).substr(3)});
  ASSERT_GT(cuts[0].size(), 50u);
  const std::vector<std::string_view> json_parts = {"{\"n\":", " 1, \"a\": 2}"};
  std::vector<CheckpointInfo> infos;
  {
    auto parts_store = OpenStore("parts.db");
    auto joined_store = OpenStore("joined.db");
    ASSERT_NE(parts_store, nullptr);
    ASSERT_NE(joined_store, nullptr);
    std::optional<CheckpointInfo> parent;
    for (const auto& parts : cuts) {
      auto a = parts_store->CommitParts("s", parts, parent);
      auto b = joined_store->Commit("s", joined, parent);
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      ASSERT_EQ(*a, *b);
      infos.push_back(*a);
      parent = *a;
    }
    auto a = parts_store->CommitParts("s", json_parts, parent);
    auto b = joined_store->Commit("s", R"({"n": 1, "a": 2})", parent);
    ASSERT_TRUE(a.ok() && b.ok());
    infos.push_back(*a);
  }
  const std::vector<RawRow> rows = ReadRawRows((root_ / "parts.db").string());
  ASSERT_EQ(rows.size(), cuts.size() + 1);
  EXPECT_EQ(rows, ReadRawRows((root_ / "joined.db").string()));
  auto reopened = OpenStore("parts.db");
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(reopened->Index("s")->size(), infos.size()) << "every row's seal verifies";
  for (size_t i = 0; i + 1 < infos.size(); ++i) {
    EXPECT_EQ(reopened->Retrieve(infos[i]).value(), joined) << "cut " << i;
    EXPECT_EQ(rows[i].body_type, "blob");
    EXPECT_EQ(rows[i].checksum_type, "blob");
  }
  EXPECT_EQ(reopened->Retrieve(infos.back()).value(), R"({"a":2,"n":1})");
}

// Every write and sync a commit makes fails in turn (the n-th after arming, for n = 1, 2, ...
// until a commit reaches none): a failed commit reports an I/O error and leaves no row, in this
// life and after a reopen, and the next commit works. One exception, SQLite's and the same before
// the blob path (this test fails the same way against the store's previous Commit): in a rollback
// journal mode the commit's last I/O (syncing the journal's invalidation) fails after the
// database holds the row, which then stays, with its exact bytes.
class SqliteStorePartsFailureTest : public SqliteStorePartsTest,
                                    public ::testing::WithParamInterface<std::string> {};

TEST_P(SqliteStorePartsFailureTest, AFailedWriteOrSyncLeavesNoRowAndTheNextCommitWorks) {
  RegisterFailingVfs();
  std::vector<CheckpointInfo> committed;
  std::vector<std::string> bodies, encoded_bodies;
  int failures = 0, ios = 0, sync_failures = 0;
  std::vector<int> left_behind;
  {
    auto store = OpenStore("f.db", {.vfs_name = kFailingVfs, .journal_mode = GetParam()});
    ASSERT_NE(store, nullptr);
    const auto commit = [&](int n) -> Result<CheckpointInfo> {
      const Checkpoint c = Big(n, 200000);  // the parts point into its values
      const EncodedCheckpoint encoded = EncodeCheckpointParts(c);
      std::optional<CheckpointInfo> parent;
      if (!committed.empty()) parent = committed.back();
      auto info = store->CommitParts("s", encoded.Parts(), parent);
      encoded_bodies.push_back(encoded.Join());
      if (info.ok()) {
        committed.push_back(*info);
        bodies.push_back(encoded_bodies.back());
      }
      return info;
    };
    ASSERT_TRUE(commit(0).ok());
    for (int n = 1; n < 200; ++n) {
      Plan() = FailPlan{.armed = true, .fail_at = n};
      const size_t before = committed.size();
      auto failed = commit(n);
      const bool fired = Plan().fired;
      if (fired && Plan().fired_on_sync) ++sync_failures;
      Plan() = FailPlan();
      if (!fired) {
        ASSERT_TRUE(failed.ok()) << failed.status().ToString();
        ios = n - 1;
        break;  // the commit's every write and sync has failed once
      }
      ASSERT_FALSE(failed.ok()) << "I/O " << n << " failed, yet the commit reported success";
      EXPECT_EQ(failed.status().code(), StatusCode::kIOError) << failed.status().ToString();
      ++failures;
      auto index = store->Index("s");
      ASSERT_TRUE(index.ok()) << "I/O " << n << ": " << index.status().ToString();
      if (index->size() == before + 1) {
        // SQLite reports a failure after its commit point (the rollback journal's final
        // invalidation sync) although the row is in the database: the outcome is not known
        // durable, so it is an error, yet the row stays. Only that last I/O may do it.
        left_behind.push_back(n);
        committed.push_back(index->back().info);
        bodies.push_back(encoded_bodies.back());
      }
      ASSERT_EQ(index->size(), committed.size()) << "I/O " << n << " left a row behind";
      auto next = commit(1000 + n);
      ASSERT_TRUE(next.ok()) << "after I/O " << n << ": " << next.status().ToString();
    }
  }
  EXPECT_GE(failures, 2) << "the commit's writes and syncs were reached";
  EXPECT_GE(sync_failures, 1) << "no sync of a commit was failed";
  EXPECT_EQ(failures, ios);
  for (int n : left_behind) EXPECT_EQ(n, ios) << "a failure before the commit point left a row";
  auto reopened = OpenStore("f.db", {.journal_mode = GetParam()});
  ASSERT_NE(reopened, nullptr);
  auto index = reopened->Index("s");
  ASSERT_TRUE(index.ok());
  ASSERT_EQ(index->size(), committed.size());
  for (size_t i = 0; i < committed.size(); ++i) {
    EXPECT_EQ((*index)[i].info, committed[i]);
    EXPECT_EQ(reopened->Retrieve(committed[i]).value(), bodies[i]) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Stepfault, SqliteStorePartsFailureTest,
                         ::testing::Values("WAL", "PERSIST"));

// Rows rewritten as the store wrote them before the blob path (body and checksum bound as TEXT)
// read exactly like the BLOB rows beside them: Retrieve, Index and Rows, and new commits after
// them.
TEST_F(SqliteStorePartsTest, TextRowsFromBeforeTheBlobPathAndBlobRowsReadAlike) {
  const std::string framed = EncodeCheckpoint(Big(2, 50000));
  const std::string json = R"({"a":[1,2,3],"n":0})";
  std::vector<CheckpointInfo> infos;
  const std::string path = (root_ / "mixed.db").string();
  {
    auto store = OpenStore("mixed.db");
    ASSERT_NE(store, nullptr);
    infos.push_back(store->Commit("s", json, std::nullopt).value());
    infos.push_back(store->Commit("s", framed, infos.back()).value());
    infos.push_back(store->Commit("s", framed, infos.back()).value());
  }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* update = nullptr;
    ASSERT_EQ(
        sqlite3_prepare_v2(db, "UPDATE checkpoints SET body = ?1, checksum = ?2 WHERE seq = ?3", -1,
                           &update, nullptr),
        SQLITE_OK);
    for (const RawRow& row : ReadRawRows(path)) {
      if (row.seq == 3) continue;  // stays BLOB
      sqlite3_bind_text64(update, 1, row.body.data(), row.body.size(), SQLITE_TRANSIENT,
                          SQLITE_UTF8);
      sqlite3_bind_text64(update, 2, row.checksum.data(), row.checksum.size(), SQLITE_TRANSIENT,
                          SQLITE_UTF8);
      sqlite3_bind_int64(update, 3, row.seq);
      ASSERT_EQ(sqlite3_step(update), SQLITE_DONE);
      sqlite3_reset(update);
    }
    sqlite3_finalize(update);
    sqlite3_close(db);
  }
  const std::vector<RawRow> raw = ReadRawRows(path);
  ASSERT_EQ(raw.size(), 3u);
  EXPECT_EQ(raw[0].body_type, "text");
  EXPECT_EQ(raw[0].checksum_type, "text");
  EXPECT_EQ(raw[1].body_type, "text");
  EXPECT_EQ(raw[2].body_type, "blob");
  auto store = OpenStore("mixed.db");
  ASSERT_NE(store, nullptr);
  infos.push_back(store->Commit("s", framed, infos.back()).value());
  const std::vector<std::string> expected = {json, framed, framed, framed};
  auto index = store->Index("s");
  ASSERT_TRUE(index.ok());
  ASSERT_EQ(index->size(), 4u);
  auto rows = store->Rows();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 4u);
  for (size_t i = 0; i < infos.size(); ++i) {
    EXPECT_EQ((*index)[i].info, infos[i]);
    EXPECT_EQ(store->Retrieve(infos[i]).value(), expected[i]) << i;
    EXPECT_TRUE((*rows)[i].intact) << i;
    EXPECT_EQ((*rows)[i].document, expected[i]) << i;
  }
}

// The manager's call reaches the parts-writing CommitParts, not the default that joins the parts
// (checked at compile time: the store derives from PartsWritingCheckpointStore, store_base.h;
// deriving it from CheckpointStore again fails the build of this test). What it does with the parts
// is the rest of this file: the exact rows above, and no second copy of the body in SQLite's memory
// below.
static_assert(std::is_base_of_v<PartsWritingCheckpointStore, SqliteCheckpointStore>,
              "SqliteCheckpointStore must write parts (CheckpointStore's CommitParts joins them)");

// The body reaches the database pages without a copy in a record: committing an 8 MB checkpoint
// raises SQLite's memory high-water mark by about the body once (its pages), well under the twice
// that binding it as a value costs (checked against the store before the blob path: for an 8.45 MB
// body the rise was 15.8 MB there, 7.4 MB here; SQLite allocates the first ~2 MB of its page cache
// at open).
TEST_F(SqliteStorePartsTest, TheBodyIsNotCopiedIntoARecordInSqlitesMemory) {
  auto store = OpenStore("memory.db");
  ASSERT_NE(store, nullptr);
  const Checkpoint c = Big(3, 8 << 20);  // the parts point into its values
  const EncodedCheckpoint encoded = EncodeCheckpointParts(c);
  ASSERT_GT(encoded.size(), size_t{8} << 20);
  sqlite3_int64 before = 0, high = 0;
  ASSERT_EQ(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &before, &high, /*resetFlag=*/1),
            SQLITE_OK);
  ASSERT_GT(before, 0) << "SQLite keeps no memory statistics (SQLITE_DEFAULT_MEMSTATUS=0)";
  auto info = store->CommitParts("s", encoded.Parts(), std::nullopt);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  sqlite3_int64 now = 0;
  ASSERT_EQ(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &now, &high, 0), SQLITE_OK);
  const double rise = static_cast<double>(high - before);
  // The pages hold the body (SQLite allocated the first ~2 MB of its page cache at open).
  EXPECT_GT(rise, 0.6 * static_cast<double>(encoded.size()));
  EXPECT_LT(rise, 1.25 * static_cast<double>(encoded.size())) << "a second copy of the body";
}

}  // namespace
}  // namespace stepfault
