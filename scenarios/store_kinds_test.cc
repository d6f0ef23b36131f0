// Goal: every checkpoint-store name a host can be given opens the store it says (issue 15: every
// store mode is explored like the others), and the durable-checkpoint oracle reads a rollback-mode
// store holding a hot journal as the store would after the crash, without changing the world.
// Method: a SimFs world with the SQLite VFS registered on it, as every life has; the store is
// opened through OpenCheckpointStore (the hosts' one way in) for each CheckpointStoreKinds name,
// one checkpoint committed, and the world's files looked at directly: the journal mode shows in the
// database header (bytes 18-19: 1 for a rollback journal, 2 for WAL) and in which side file exists
// (a -wal file while WAL is open; a -journal file that PERSIST keeps with bytes, TRUNCATE keeps
// empty and DELETE removes when the store closes). For the hot journal: die (a crash, through the
// world's fault hook) at the first database write of a second commit, after the journal was synced;
// the crash clone then holds a hot journal; ReadDurableCheckpoints must list only the first row
// and leave the clone's digest (every byte, every file) as it found it.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/host_drive.h"

namespace stepfault::scenarios {
namespace {

constexpr char kDir[] = "/data";
const std::string kDb = std::string(kDir) + "/checkpoints/" + kSqliteCheckpointDb;

// Records every point and dies at the first database write after `armed` is set and a journal
// sync has been seen.
class DieAtDbWriteAfterJournalSync final : public faults::FaultHook {
 public:
  faults::Decision OnPoint(std::string_view point) override {
    if (!armed) return faults::Decision::Proceed();
    if (point.starts_with("fs.fsync[journal]")) journal_synced = true;
    if (journal_synced && point.starts_with("fs.write[db]")) {
      died_at = std::string(point);
      return faults::Decision::Die(faults::DeathKind::kCrash);
    }
    return faults::Decision::Proceed();
  }
  bool armed = false;
  bool journal_synced = false;
  std::optional<std::string> died_at;
};

// A JSON document of about `size` bytes (a store takes any JSON document or framed checkpoint).
std::string Doc(char c, size_t size) { return "{\"pad\":\"" + std::string(size, c) + "\"}"; }

// A world with /data, the SQLite role classifier and a VFS on it; unregistered at the end.
struct World {
  explicit World(const std::string& vfs) : fs(std::make_unique<faults::SimFs>()), vfs_name(vfs) {
    fs->SetRoleClassifier(faults::SqliteRoleOf);
    SF_CHECK(fs->CreateDirIfMissing(kDir).ok());
    SF_CHECK(fs->SyncDir("/").ok());
    SF_CHECK(faults::RegisterSimVfs(vfs_name, fs.get(), 1).ok());
  }
  ~World() { faults::UnregisterSimVfs(vfs_name); }
  HostEnv Env(const std::string& store) const {
    HostEnv env;
    env.env = fs.get();
    env.dir = kDir;
    env.vfs_name = vfs_name;
    env.checkpoint_store = store;
    return env;
  }
  bool Exists(const std::string& path) const {
    const std::vector<std::string> files = fs->ListAllFiles();
    return std::find(files.begin(), files.end(), path) != files.end();
  }
  std::unique_ptr<faults::SimFs> fs;
  std::string vfs_name;
};

// What a commit leaves: the header's format bytes and the side files, open and after closing.
struct Seen {
  int header_version = 0;  // byte 18 of the database (0: no database)
  bool wal_open = false, journal_open = false;
  bool journal_after_close = false, wal_after_close = false;
  uint64_t journal_size_open = 0;
};

Seen CommitOne(const std::string& store) {
  World w("store-kinds-" + store);
  Seen seen;
  {
    auto opened = OpenCheckpointStore(w.Env(store), "checkpoints");
    SF_CHECK(opened.ok());
    SF_CHECK((*opened)->Commit("s", Doc('x', 5000), std::nullopt).ok());
    seen.wal_open = w.Exists(kDb + "-wal");
    seen.journal_open = w.Exists(kDb + "-journal");
    if (seen.journal_open) seen.journal_size_open = *w.fs->GetFileSize(kDb + "-journal");
  }
  seen.journal_after_close = w.Exists(kDb + "-journal");
  seen.wal_after_close = w.Exists(kDb + "-wal");
  if (w.Exists(kDb)) seen.header_version = static_cast<unsigned char>((*w.fs->ReadFile(kDb))[18]);
  return seen;
}

// The table itself is tested beside it (engine/stores/store_kinds_test.cc); a host's open refuses
// a name it does not hold.
TEST(StoreKindsTest, AHostRefusesAStoreNameTheTableDoesNotHold) {
  World w("store-kinds-unknown");
  auto opened = OpenCheckpointStore(w.Env("sqlite-wal"), "checkpoints");
  EXPECT_EQ(opened.status().code(), StatusCode::kInvalidArgument);
}

TEST(StoreKindsTest, EachNameOpensTheJournalModeItSays) {
  const Seen file = CommitOne("file");
  EXPECT_EQ(file.header_version, 0);  // no database: the file store
  const Seen wal = CommitOne("sqlite");
  EXPECT_EQ(wal.header_version, 2);
  EXPECT_TRUE(wal.wal_open);
  EXPECT_FALSE(wal.journal_open);
  EXPECT_FALSE(wal.wal_after_close);  // checkpointed into the database and removed at the close
  for (const char* rollback : {"sqlite-persist", "sqlite-truncate", "sqlite-delete"}) {
    SCOPED_TRACE(rollback);
    const Seen s = CommitOne(rollback);
    EXPECT_EQ(s.header_version, 1);
    EXPECT_FALSE(s.wal_open);
    EXPECT_TRUE(s.journal_open);
  }
  // What tells the three apart: PERSIST keeps the journal's bytes (its header zeroed), TRUNCATE
  // truncates it to nothing, DELETE (under the store's exclusive locking) keeps it while open and
  // deletes it when the store closes.
  const Seen persist = CommitOne("sqlite-persist");
  EXPECT_GT(persist.journal_size_open, 0u);
  EXPECT_TRUE(persist.journal_after_close);
  const Seen truncate = CommitOne("sqlite-truncate");
  EXPECT_EQ(truncate.journal_size_open, 0u);
  EXPECT_TRUE(truncate.journal_after_close);
  const Seen del = CommitOne("sqlite-delete");
  EXPECT_GT(del.journal_size_open, 0u);
  EXPECT_FALSE(del.journal_after_close);
}

TEST(StoreKindsTest, TheOracleReadsAHotJournalAsRolledBackAndLeavesTheWorldAsItWas) {
  for (const char* store : {"sqlite-persist", "sqlite-truncate", "sqlite-delete"}) {
    SCOPED_TRACE(store);
    World w(std::string("hot-journal-") + store);
    DieAtDbWriteAfterJournalSync hook;
    w.fs->SetHook(&hook);
    {
      auto opened = OpenCheckpointStore(w.Env(store), "checkpoints");
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      ASSERT_TRUE((*opened)->Commit("s", Doc('a', 5000), std::nullopt).ok());
      hook.armed = true;  // the second commit dies with its journal synced, the database not
      EXPECT_FALSE((*opened)->Commit("s", Doc('b', 200000), std::nullopt).ok());
    }
    ASSERT_TRUE(hook.died_at.has_value());
    w.fs->SetHook(nullptr);
    std::unique_ptr<faults::SimFs> after = w.fs->CrashClone(faults::DeathKind::kCrash, 0);
    auto journal = after->ReadFile(kDb + "-journal");
    ASSERT_TRUE(journal.ok());
    ASSERT_GE(journal->size(), 8u);
    EXPECT_NE(journal->substr(0, 8), std::string(8, '\0')) << "not a hot journal";
    const std::string before = after->Digest();
    HostEnv env = w.Env(store);
    env.env = after.get();
    auto read = ReadDurableCheckpoints(env, "checkpoints");
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_EQ(read->items.size(), 1u);
    EXPECT_TRUE(read->items[0].intact);
    EXPECT_EQ(after->Digest(), before) << "the look changed the world";
  }
}

}  // namespace
}  // namespace stepfault::scenarios
