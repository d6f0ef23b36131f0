// Goal: the crash properties hold for the file store and catch the durability bugs a store author
// really writes: writing a checkpoint in place, and skipping the directory fsync after the rename.
// Method: run CheckStoreCrashProperties on FileCheckpointStore as shipped, with its in-place-write
// hazard, and over an Env wrapper whose SyncDir does nothing (the bug introduced through the seam).
#include "faults/testing/store_crash_properties.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/stores/file_store.h"

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

}  // namespace
}  // namespace stepfault::testing
