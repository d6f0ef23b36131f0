// Goal: --crash-at kills the real process with SIGKILL exactly at the named hit, after flushing
// what it printed, and rejects malformed targets.
// Method: fork a child that drives a KillInjector through both seams; the parent checks how the
// child ended (WIFSIGNALED/WTERMSIG or its exit status) and what it wrote to a pipe.
#include "faults/kill_injector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace stepfault::faults {
namespace {

using ::testing::HasSubstr;

struct ChildEnd {
  int status = 0;
  std::string output;
};

// Runs `body` in a child with stdout on a pipe; the child exits 0 if body returns.
template <typename Body>
ChildEnd RunChild(Body body) {
  int fds[2];
  SF_CHECK(::pipe(fds) == 0);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  SF_CHECK(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], STDOUT_FILENO);
    body();
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  ChildEnd end;
  char buf[256];
  for (int i = 0; i < 10000; ++i) {
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    end.output.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  SF_CHECK(::waitpid(pid, &end.status, 0) == pid);
  return end;
}

TEST(KillInjector, ParsesPointAndHitNumber) {
  Result<KillTarget> t = KillTarget::Parse("fs.rename[receipt]#2");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->point, (FaultPoint{"fs.rename", "receipt"}));
  EXPECT_EQ(t->hit, 2);
  EXPECT_EQ(t->Print(), "fs.rename[receipt]#2");
  Result<KillTarget> one = KillTarget::Parse("checkpoint.commit.before");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->hit, 1);
  EXPECT_EQ(one->Print(), "checkpoint.commit.before");
}

TEST(KillInjector, RejectsMalformedTargets) {
  EXPECT_THAT(KillTarget::Parse("").status().message(),
              HasSubstr("position 1: expected a point name"));
  EXPECT_THAT(KillTarget::Parse("x#").status().message(),
              HasSubstr("position 3: expected a hit number"));
  EXPECT_THAT(KillTarget::Parse("x#0").status().message(),
              HasSubstr("position 3: hit number after '#' must be at least 1"));
  EXPECT_THAT(
      KillTarget::Parse("x%2").status().message(),
      HasSubstr("position 2: unexpected '%' after the point 'x'; --crash-at expects POINT[#N]"));
  EXPECT_THAT(KillTarget::Parse("Crash@x").status().message(),
              HasSubstr("--crash-at expects POINT[#N]"));
  EXPECT_FALSE(KillInjector::Create("x y").ok());
}

TEST(KillInjector, DiesBySigkillAtTheNthMatchingHitAfterFlushing) {
  ChildEnd end = RunChild([] {
    auto injector = KillInjector::Create("fs.write#2");
    SF_CHECK(injector.ok());
    std::printf("before");  // buffered: a pipe is not a terminal
    (void)(*injector)->OnPoint("fs.write[db]");
    (*injector)->Hit("checkpoint.commit.before");
    (void)(*injector)->OnPoint("fs.write[receipt]");  // the 2nd fs.write of any role
    std::printf(" after");
    std::fflush(nullptr);
    ::_exit(3);
  });
  ASSERT_TRUE(WIFSIGNALED(end.status)) << "status " << end.status;
  EXPECT_EQ(WTERMSIG(end.status), SIGKILL);
  EXPECT_EQ(end.output, "before");
}

TEST(KillInjector, ProbeHitKillsToo) {
  ChildEnd end = RunChild([] {
    KillInjector injector(*KillTarget::Parse("checkpoint.commit.after"));
    injector.Hit("checkpoint.commit.after");
    ::_exit(3);
  });
  ASSERT_TRUE(WIFSIGNALED(end.status));
  EXPECT_EQ(WTERMSIG(end.status), SIGKILL);
}

TEST(KillInjector, LivesWhenTheHitNeverComes) {
  ChildEnd end = RunChild([] {
    KillInjector injector(*KillTarget::Parse("fs.rename[receipt]#2"));
    (void)injector.OnPoint("fs.rename[receipt]");
    (void)injector.OnPoint("fs.rename[checkpoint]");  // another role does not count
    injector.Hit("checkpoint.commit.before");
    ::_exit(injector.matching_hits() == 1 ? 7 : 8);
  });
  ASSERT_TRUE(WIFEXITED(end.status));
  EXPECT_EQ(WEXITSTATUS(end.status), 7);
}

}  // namespace
}  // namespace stepfault::faults
