// Goal: LookOnce answers a look at bytes it has seen (and that the look left unchanged) without
// running it again, runs it again whenever any byte of the database's files differs, and never
// keeps a look that changed those files, so such a look changes the world again every time.
// Method: a simulated world with a database file and its journal; the "look" is a counting lambda
// that returns a digest of what it read (and, for the last case, writes to the database as a hot
// journal's rollback would). Each case uses its own salt, so kept looks of other cases never match.
#include "scenarios/business_look.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "faults/sim_fs.h"

namespace stepfault::scenarios {
namespace {

constexpr char kDb[] = "/w/business.db";

class LookOnceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs_.CreateDirIfMissing("/w").ok());
    Write(kDb, "page-1");
  }
  void Write(const std::string& path, const std::string& bytes) {
    auto file = fs_.NewWritableFile(path);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Append(bytes).ok());
    ASSERT_TRUE((*file)->Close().ok());
  }
  // A look that counts its runs and returns the database's bytes.
  std::string Look(const std::string& salt) {
    return LookOnce<std::string>(&fs_, kDb, salt, [this]() {
      ++runs_;
      return fs_.ReadFile(kDb).value();
    });
  }

  faults::SimFs fs_;
  int runs_ = 0;
};

TEST_F(LookOnceTest, ASecondLookAtTheSameBytesIsAnsweredWithoutRunning) {
  EXPECT_EQ(Look("same-bytes"), "page-1");
  EXPECT_EQ(Look("same-bytes"), "page-1");
  EXPECT_EQ(runs_, 1);
  EXPECT_EQ(Look("same-bytes, another salt"), "page-1");
  EXPECT_EQ(runs_, 2) << "the salt is part of the key";
}

TEST_F(LookOnceTest, AnyChangedByteOfTheDatabaseOrAJournalBesideItRunsTheLookAgain) {
  EXPECT_EQ(Look("changed"), "page-1");
  Write(kDb, "page-2");
  EXPECT_EQ(Look("changed"), "page-2");
  EXPECT_EQ(runs_, 2);
  Write(std::string(kDb) + "-journal", "hot");
  EXPECT_EQ(Look("changed"), "page-2");
  EXPECT_EQ(runs_, 3) << "a journal beside the database is part of what the look reads";
  Write("/w/unrelated.db", "x");
  EXPECT_EQ(Look("changed"), "page-2");
  EXPECT_EQ(runs_, 3) << "files of other names are not";
}

TEST_F(LookOnceTest, ALookThatChangedTheFilesIsNeverKept) {
  auto rolling_back = [this]() {
    ++runs_;
    Write(kDb, "page-1");  // the look rewrites the database, as rolling back a hot journal does
    return std::string("rolled back");
  };
  Write(kDb, "torn");
  EXPECT_EQ(LookOnce<std::string>(&fs_, kDb, "changing", rolling_back), "rolled back");
  Write(kDb, "torn");
  EXPECT_EQ(LookOnce<std::string>(&fs_, kDb, "changing", rolling_back), "rolled back");
  EXPECT_EQ(runs_, 2);
  EXPECT_EQ(fs_.ReadFile(kDb).value(), "page-1") << "the second look changed the world again";
}

}  // namespace
}  // namespace stepfault::scenarios
