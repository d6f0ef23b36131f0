// Goal: the crash properties hold for the file store and catch the durability bugs a store author
// really writes: writing a checkpoint in place, and skipping the directory fsync after the rename.
// They hold for the SQLite store too, whose commit inserts a zero-filled row and then writes the
// body into it with incremental blob I/O: a death at any write or sync of that transaction leaves
// the old rows or the new row intact, never a zero-filled or torn body passing its seal.
// Method: run CheckStoreCrashProperties on FileCheckpointStore as shipped, with its in-place-write
// hazard, and over an Env wrapper whose SyncDir does nothing (the bug introduced through the seam);
// and on SqliteCheckpointStore (WAL and PERSIST) over the simulated VFS, with checkpoints of 200 KB
// (four overflow pages of 64 KB each, so the blob writes span pages).
#include "faults/testing/store_crash_properties.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/stores/file_store.h"
#include "engine/stores/sqlite_store.h"
#include "faults/sim_vfs.h"

namespace stepfault::testing {
namespace {

EnvStoreOpener FileStore(FileStoreOptions options = {}) {
  return [options](Env* env, const std::string& dir) -> Result<std::unique_ptr<CheckpointStore>> {
    auto store = FileCheckpointStore::Open(env, dir, options);
    if (!store.ok()) return store.status();
    return std::unique_ptr<CheckpointStore>(std::move(store).value());
  };
}

// An Env whose directory fsync returns ok and does nothing: a rename is then never durable.
class SkipDirSyncEnv : public EnvWrapper {
 public:
  explicit SkipDirSyncEnv(Env* target) : EnvWrapper(target) {}
  Status SyncDir(const std::string& dir) override {
    (void)dir;
    return Status::Ok();
  }
};

TEST(StoreCrashProperties, FileStoreKeepsEveryCommittedCheckpointAtEveryWindow) {
  const CrashPropertyResult r = CheckStoreCrashProperties(FileStore());
  EXPECT_THAT(r.failures, ::testing::IsEmpty());
  EXPECT_GT(r.windows, 20);
  EXPECT_EQ(r.states_checked, 2 * r.windows);
}

TEST(StoreCrashProperties, CatchTheInPlaceWriteHazard) {
  FileStoreOptions options;
  options.hazard_in_place_write = true;
  const CrashPropertyResult r = CheckStoreCrashProperties(FileStore(options));
  EXPECT_THAT(r.failures, ::testing::Not(::testing::IsEmpty()));
}

TEST(StoreCrashProperties, CatchAStoreWhoseDirectoryFsyncIsSkipped) {
  // Each opener call wraps the world it is given; the wrapper lives as long as the store needs it.
  std::vector<std::unique_ptr<SkipDirSyncEnv>> wrappers;
  const EnvStoreOpener inner = FileStore();
  const CrashPropertyResult r = CheckStoreCrashProperties(
      [&](Env* env, const std::string& dir) -> Result<std::unique_ptr<CheckpointStore>> {
        wrappers.push_back(std::make_unique<SkipDirSyncEnv>(env));
        return inner(wrappers.back().get(), dir);
      });
  ASSERT_THAT(r.failures, ::testing::Not(::testing::IsEmpty()));
  EXPECT_THAT(r.failures, ::testing::Contains(::testing::HasSubstr("powerloss@")));
  EXPECT_THAT(r.failures, ::testing::Each(::testing::Not(::testing::HasSubstr("crash@"))));
}

// Opens the SQLite store in `dir` of the SimFs it is given, through a VFS registered for that world
// (each death's world is a new SimFs); the names are unregistered when the opener goes, after every
// store it opened is closed.
class SqliteOpener {
 public:
  explicit SqliteOpener(std::string journal_mode) : journal_mode_(std::move(journal_mode)) {}
  ~SqliteOpener() {
    for (const std::string& name : names_) faults::UnregisterSimVfs(name);
  }
  Result<std::unique_ptr<CheckpointStore>> operator()(Env* env, const std::string& dir) {
    auto* fs = dynamic_cast<faults::SimFs*>(env);
    if (fs == nullptr) return Status::Internal("the crash properties run on a SimFs");
    names_.push_back("crash-properties-sqlite-" + std::to_string(names_.size()));
    SF_RETURN_IF_ERROR(faults::RegisterSimVfs(names_.back(), fs, /*seed=*/11));
    faults::SeedSqliteRandomness(11);
    auto store = SqliteCheckpointStore::Open(
        env, dir + "/checkpoints.db",
        {.vfs_name = names_.back(), .journal_mode = journal_mode_, .seed = 5});
    if (!store.ok()) return store.status();
    return std::unique_ptr<CheckpointStore>(std::move(store).value());
  }

 private:
  const std::string journal_mode_;
  std::vector<std::string> names_;
};

class SqliteStoreCrashProperties : public ::testing::TestWithParam<std::string> {};

TEST_P(SqliteStoreCrashProperties, KeepEveryCommittedCheckpointAtEveryWindowOfTheBlobWrites) {
  SqliteOpener opener(GetParam());
  const CrashPropertyResult r =
      CheckStoreCrashProperties([&](Env* env, const std::string& dir) { return opener(env, dir); },
                                {.checkpoints = 4, .payload_bytes = 200000});
  EXPECT_THAT(r.failures, ::testing::IsEmpty());
  EXPECT_GT(r.windows, 10);
  EXPECT_EQ(r.states_checked, 2 * r.windows);
}

INSTANTIATE_TEST_SUITE_P(Stepfault, SqliteStoreCrashProperties,
                         ::testing::Values("WAL", "PERSIST"));

}  // namespace
}  // namespace stepfault::testing
