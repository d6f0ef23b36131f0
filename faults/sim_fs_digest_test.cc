// Goal: SimFs::Digest tells two worlds apart exactly when their futures can differ, so the
// explorer may explore the recovery of one crash state once. Method: build worlds through the Env
// calls, compare digests of worlds built the same way, worlds differing in one durable or volatile
// detail (bytes, a synced name, a pending write, a hard link), and power-loss clones of worlds that
// differ only in what a power loss forgets.
#include <gtest/gtest.h>

#include <string>

#include "faults/sim_fs.h"

namespace stepfault::faults {
namespace {

void Put(SimFs& fs, const std::string& path, const std::string& data, bool sync_file,
         bool sync_dir) {
  auto file = fs.NewWritableFile(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_TRUE((*file)->Append(data).ok());
  if (sync_file) {
    ASSERT_TRUE((*file)->Sync().ok());
  }
  ASSERT_TRUE((*file)->Close().ok());
  if (sync_dir) {
    ASSERT_TRUE(fs.SyncDir("/d").ok());
  }
}

std::unique_ptr<SimFs> World(const std::string& data, bool sync_file, bool sync_dir) {
  auto fs = std::make_unique<SimFs>();
  EXPECT_TRUE(fs->CreateDirIfMissing("/d").ok());
  EXPECT_TRUE(fs->SyncDir("/").ok());
  Put(*fs, "/d/a", data, sync_file, sync_dir);
  return fs;
}

TEST(SimFsDigestTest, WorldsBuiltTheSameWayHaveTheSameDigestAndItIsStable) {
  auto a = World("hello", true, true);
  auto b = World("hello", true, true);
  EXPECT_EQ(a->Digest(), b->Digest());
  EXPECT_EQ(a->Digest().size(), 32u);
  EXPECT_EQ(a->Digest(), a->Digest());
}

TEST(SimFsDigestTest, DifferentBytesSyncStateOrDirectoryEntriesGiveDifferentDigests) {
  const std::string base = World("hello", true, true)->Digest();
  EXPECT_NE(World("hellp", true, true)->Digest(), base);   // one byte
  EXPECT_NE(World("hello", false, true)->Digest(), base);  // bytes not durable
  EXPECT_NE(World("hello", true, false)->Digest(), base);  // name not durable
}

TEST(SimFsDigestTest, HardLinksAreToldApartFromCopies) {
  auto linked = World("x", true, true);
  auto copied = World("x", true, true);
  // A rename synced only in the target leaves a hard link; a copy has two inodes.
  ASSERT_TRUE(linked->CreateDirIfMissing("/e").ok());
  ASSERT_TRUE(copied->CreateDirIfMissing("/e").ok());
  ASSERT_TRUE(linked->RenameFile("/d/a", "/e/a").ok());
  ASSERT_TRUE(linked->SyncDir("/e").ok());
  Put(*copied, "/e/a", "x", true, false);
  ASSERT_TRUE(copied->SyncDir("/e").ok());
  ASSERT_TRUE(copied->RemoveFile("/d/a").ok());
  EXPECT_NE(linked->Digest(), copied->Digest());
}

TEST(SimFsDigestTest, PowerLossClonesOfWorldsDifferingOnlyInUnsyncedDataAreEqual) {
  auto a = World("hello", true, true);
  auto b = World("hello", true, true);
  Put(*b, "/d/volatile", "never synced", false, false);
  EXPECT_NE(a->Digest(), b->Digest());
  EXPECT_EQ(a->CrashClone(DeathKind::kPowerLoss, 7)->Digest(),
            b->CrashClone(DeathKind::kPowerLoss, 7)->Digest());
  // A crash keeps the unsynced file, so the crash clones still differ.
  EXPECT_NE(a->CrashClone(DeathKind::kCrash, 7)->Digest(),
            b->CrashClone(DeathKind::kCrash, 7)->Digest());
}

}  // namespace
}  // namespace stepfault::faults
