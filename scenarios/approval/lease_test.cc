// Goal: one host per directory. Method: take the lease on a scratch directory with PosixEnv, try
// again from this process and from a forked child (another process), release it by destruction,
// and take it again.
#include "scenarios/approval/lease.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "tools/testing/test_env.h"

namespace stepfault::scenarios {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class LeaseTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_env::ScratchDir("lease"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string dir_;
};

TEST_F(LeaseTest, SecondHostIsBusyUntilTheFirstReleases) {
  auto first = AcquireLease(PosixEnv(), dir_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)->dir(), dir_);

  auto second = AcquireLease(PosixEnv(), dir_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kBusy);
  EXPECT_THAT(second.status().message(),
              HasSubstr("another host is running on directory " + dir_ +
                        " (it holds host.lease); wait for it to finish"));

  first->reset();  // the first host ends
  auto third = AcquireLease(PosixEnv(), dir_);
  EXPECT_TRUE(third.ok()) << third.status().ToString();
}

TEST_F(LeaseTest, AnotherProcessIsExcludedToo) {
  auto held = AcquireLease(PosixEnv(), dir_);
  ASSERT_TRUE(held.ok());
  pid_t pid = ::fork();
  if (pid == 0) {
    auto lease = AcquireLease(PosixEnv(), dir_);
    ::_exit(lease.ok() ? 0 : (lease.status().code() == StatusCode::kBusy ? 7 : 8));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST_F(LeaseTest, LeasesOnDifferentDirectoriesAreIndependent) {
  const std::string other = dir_ + "_other";
  fs::create_directories(other);
  {
    auto a = AcquireLease(PosixEnv(), dir_);
    auto b = AcquireLease(PosixEnv(), other);
    EXPECT_TRUE(a.ok());
    EXPECT_TRUE(b.ok());
  }
  fs::remove_all(other);
}

TEST_F(LeaseTest, MissingDirectoryIsAnErrorNotBusy) {
  auto lease = AcquireLease(PosixEnv(), JoinPath(dir_, "missing"));
  ASSERT_FALSE(lease.ok());
  EXPECT_NE(lease.status().code(), StatusCode::kBusy);
  EXPECT_THAT(lease.status().message(), HasSubstr("taking the host lease"));
}

}  // namespace
}  // namespace stepfault::scenarios
