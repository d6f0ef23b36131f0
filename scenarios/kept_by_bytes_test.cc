// Goal: FilesKey names a set of files by their names and contents only: the simulated world's
// path (the hash kept on each file, SimFs::ReadFileHash) gives the same key as reading the bytes
// through any other Env, every changed byte, name or read error gives another key, and files
// outside the prefix do not count.
// Method: one SimFs seen directly and through an EnvWrapper (which hides that it is a SimFs, so
// FilesKey reads the bytes); keys compared before and after each change.
// Checked to fail when broken: a kept hash not renewed by a write (SimWorld::Write without Touch)
// fails AChangedByteChangesTheKeyOnBothPaths.
#include "scenarios/kept_by_bytes.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "faults/sim_fs.h"

namespace stepfault::scenarios {
namespace {

void Put(faults::SimFs* fs, const std::string& path, const std::string& bytes) {
  auto file = fs->NewWritableFile(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_TRUE((*file)->Append(bytes).ok());
  ASSERT_TRUE((*file)->Sync().ok());
}

std::string Key(Env* env, const std::string& prefix = "db") {
  Result<std::string> key = FilesKey(env, "salt", "/w", prefix);
  EXPECT_TRUE(key.ok()) << key.status().ToString();
  return key.ok() ? *key : std::string();
}

class FilesKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs_.CreateDirIfMissing("/w").ok());
    Put(&fs_, "/w/db", std::string(10000, 'a'));
    Put(&fs_, "/w/db-wal", "wal bytes");
    Put(&fs_, "/w/other", "not under the prefix");
  }
  faults::SimFs fs_;
  EnvWrapper wrapped_{&fs_};
};

TEST_F(FilesKeyTest, TheSimulatedWorldsKeptHashesGiveTheKeyOfTheBytesRead) {
  EXPECT_EQ(Key(&fs_), Key(&wrapped_));
  EXPECT_EQ(Key(&fs_), Key(&fs_));
}

TEST_F(FilesKeyTest, AChangedByteChangesTheKeyOnBothPaths) {
  const std::string before = Key(&fs_);
  EXPECT_EQ(Key(&wrapped_), before);  // hashes are kept on the files now
  auto file = fs_.OpenFile("/w/db", /*create=*/false, /*exclusive=*/false);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->WriteAt(5000, "b").ok());
  EXPECT_NE(Key(&fs_), before);
  EXPECT_EQ(Key(&fs_), Key(&wrapped_));
}

TEST_F(FilesKeyTest, NamesAndPrefixDecideWhichFilesCount) {
  const std::string before = Key(&fs_);
  Put(&fs_, "/w/other", "changed, but outside the prefix");
  EXPECT_EQ(Key(&fs_), before);
  ASSERT_TRUE(fs_.RenameFile("/w/db-wal", "/w/db-journal").ok());
  EXPECT_NE(Key(&fs_), before);
  EXPECT_EQ(Key(&fs_), Key(&wrapped_));
  EXPECT_NE(Key(&fs_, "d"), Key(&fs_, "db"));  // the prefix is part of the key
}

TEST_F(FilesKeyTest, AFrozenWorldGivesNoKeyOnEitherPath) {
  fs_.Freeze(faults::DeathKind::kCrash, "test");
  Result<std::string> direct = FilesKey(&fs_, "salt", "/w", "db");
  Result<std::string> read = FilesKey(&wrapped_, "salt", "/w", "db");
  ASSERT_FALSE(direct.ok());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(direct.status().ToString(), read.status().ToString());
}

// On jemalloc (the `stepfault` command) the meter counts what is held since it was made and not
// what was allocated and freed again; elsewhere (this test binary runs on glibc's malloc) it says
// it cannot, so the read cache falls back to its estimate.
TEST(AllocatedSinceTest, CountsWhatIsStillHeldAndNotWhatWasFreed) {
  const AllocatedSince meter;
  if (!meter.Bytes().has_value()) GTEST_SKIP() << "not running on jemalloc";
  auto held = std::make_unique<std::string>(size_t{4} << 20, 'x');
  {
    const std::string freed(size_t{8} << 20, 'y');
    EXPECT_GE(*meter.Bytes(), size_t{12} << 20);
  }
  EXPECT_GE(*meter.Bytes(), size_t{4} << 20);
  EXPECT_LT(*meter.Bytes(), size_t{8} << 20);
  held.reset();
  EXPECT_LT(*meter.Bytes(), size_t{1} << 20);
}

}  // namespace
}  // namespace stepfault::scenarios
