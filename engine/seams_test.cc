// Goal: the seams are deterministic and honest. Method: check the pure functions against fixed
// values, the logical clock's progression, and the PosixEnv contract on a scratch directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "engine/clock.h"
#include "engine/crc32c.h"
#include "engine/env.h"
#include "engine/random.h"
#include "tools/testing/test_env.h"

namespace stepfault {
namespace {

TEST(Crc32cTest, MatchesTheStandardCheckValue) {
  // The CRC32C of "123456789" is 0xE3069283 (RFC 3720 check value).
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32cTag("123456789"), "crc32c:e3069283");
}

TEST(RandomTest, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    (void)c;
  }
  EXPECT_NE(Rng(42).Next(), Rng(43).Next());
  IdSource ids(7);
  std::string id = ids.NewId();
  EXPECT_EQ(id.size(), 32u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(IdSource(7).NewId(), id);
  EXPECT_EQ(DeriveId(1, "a|b"), DeriveId(1, "a|b"));
  EXPECT_NE(DeriveId(1, "a|b"), DeriveId(2, "a|b"));
  EXPECT_NE(DeriveSeed(1, "x"), DeriveSeed(1, "y"));
}

TEST(RandomTest, UniformStaysInBound) {
  Rng r(1);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(r.Uniform(7), 7u);
}

TEST(ClockTest, LogicalClockStartsAtItsEpochAndTicks) {
  LogicalClock clock;
  EXPECT_EQ(FormatUtc(clock.NowMicros()), "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatUtc(clock.NowMicros()), "2026-01-01T00:00:00.001Z");
  EXPECT_EQ(FormatUtc(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatUtc(951782400LL * 1000000), "2000-02-29T00:00:00.000Z");
}

TEST(PosixEnvTest, AtomicPublishReplacesAndLeavesNoTemp) {
  namespace fs = std::filesystem;
  const fs::path dir = test_env::ScratchDir("posix-env");
  Env* env = PosixEnv();
  ASSERT_TRUE(env->CreateDirIfMissing(dir.string()).ok());
  ASSERT_TRUE(WriteFileAtomically(env, dir.string(), "a.json", "one").ok());
  ASSERT_TRUE(WriteFileAtomically(env, dir.string(), "a.json", "two").ok());
  EXPECT_EQ(*env->ReadFile((dir / "a.json").string()), "two");
  EXPECT_EQ(*env->GetChildren(dir.string()), std::vector<std::string>{"a.json"});
  EXPECT_EQ(env->ReadFile((dir / "missing").string()).status().code(), StatusCode::kNotFound);
  fs::remove_all(dir);
}

TEST(PosixEnvTest, SecondLockOnTheSamePathIsBusyUntilReleased) {
  namespace fs = std::filesystem;
  const fs::path dir = test_env::ScratchDir("posix-lock");
  Env* env = PosixEnv();
  auto first = env->LockFile((dir / "LOCK").string());
  ASSERT_TRUE(first.ok());
  auto second = env->LockFile((dir / "LOCK").string());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kBusy);
  first.value().reset();
  EXPECT_TRUE(env->LockFile((dir / "LOCK").string()).ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stepfault
