// Goal: explore takes its shard from the conventions CI systems set (GoogleTest's sharding
// variables, Kubernetes Indexed Jobs) exactly as documented, rejects every malformed or conflicting
// value with a message naming the variable, and N shards run as parallel processes merge into
// exactly the unsharded report. Method: ShardFromEnvironment over hand-made environments; then the
// built binary, run as N concurrent processes each given only its environment, and `report merge`
// compared byte for byte.
#include "tools/cli/shard_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "engine/env.h"
#include "tools/cli/cli_test_util.h"
#include "tools/testing/test_env.h"

namespace stepfault::cli {
namespace {

using ::testing::HasSubstr;

Result<std::optional<std::pair<int, int>>> From(std::map<std::string, std::string> vars) {
  return ShardFromEnvironment([&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(ShardFromEnvironment, NoVariablesMeansNoShard) {
  auto s = From({});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->has_value());
}

TEST(ShardFromEnvironment, GoogleTestVariablesAreZeroBased) {
  auto s = From({{"GTEST_SHARD_INDEX", "0"}, {"GTEST_TOTAL_SHARDS", "3"}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(**s, std::make_pair(1, 3));
  s = From({{"GTEST_SHARD_INDEX", "2"}, {"GTEST_TOTAL_SHARDS", "3"}});
  EXPECT_EQ(**s, std::make_pair(3, 3));
}

TEST(ShardFromEnvironment, KubernetesIndexedJobTakesItsTotalFromStepfaultTotalShards) {
  auto s = From({{"JOB_COMPLETION_INDEX", "4"}, {"STEPFAULT_TOTAL_SHARDS", "5"}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(**s, std::make_pair(5, 5));
  auto missing = From({{"JOB_COMPLETION_INDEX", "4"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("STEPFAULT_TOTAL_SHARDS is not set"));
}

TEST(ShardFromEnvironment, MalformedValuesNameTheVariable) {
  for (const auto& [index, total, variable] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"3", "3", "GTEST_SHARD_INDEX"},             // index == total
           {"-1", "3", "GTEST_SHARD_INDEX"},            // negative
           {"1x", "3", "GTEST_SHARD_INDEX"},            // trailing garbage
           {"", "3", "GTEST_SHARD_INDEX"},              // empty
           {"0", "0", "GTEST_TOTAL_SHARDS"},            // no shards
           {"0", "99999999999", "GTEST_TOTAL_SHARDS"},  // overflow
       }) {
    auto s = From({{"GTEST_SHARD_INDEX", index}, {"GTEST_TOTAL_SHARDS", total}});
    ASSERT_FALSE(s.ok()) << index << "/" << total;
    EXPECT_THAT(s.status().message(), HasSubstr(variable)) << index << "/" << total;
  }
}

TEST(ShardFromEnvironment, ConflictingConventionsAreRejectedAndAgreeingOnesAccepted) {
  auto conflict = From({{"GTEST_SHARD_INDEX", "0"},
                        {"GTEST_TOTAL_SHARDS", "2"},
                        {"JOB_COMPLETION_INDEX", "1"},
                        {"STEPFAULT_TOTAL_SHARDS", "2"}});
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.status().message(), HasSubstr("different shards"));
  auto agree = From({{"GTEST_SHARD_INDEX", "1"},
                     {"GTEST_TOTAL_SHARDS", "2"},
                     {"JOB_COMPLETION_INDEX", "1"},
                     {"STEPFAULT_TOTAL_SHARDS", "2"}});
  ASSERT_TRUE(agree.ok());
  EXPECT_EQ(**agree, std::make_pair(2, 2));
}

// --shard and the environment go through one parser: the flag wins and is strict decimal; a shard
// the environment chose is said, with the variable that chose it.
TEST(ResolveShard, TheFlagWinsAndTheEnvironmentIsNamedWhenItChose) {
  std::map<std::string, std::string> vars = {{"GTEST_SHARD_INDEX", "0"},
                                             {"GTEST_TOTAL_SHARDS", "3"}};
  auto env = [&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  auto flag = ResolveShard("2/4", env);
  ASSERT_TRUE(flag.ok()) << flag.status().ToString();
  EXPECT_EQ(flag->index, 2);
  EXPECT_EQ(flag->count, 4);
  EXPECT_EQ(flag->EnvironmentNote(), "");
  auto chosen = ResolveShard("", env);
  ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
  EXPECT_EQ(chosen->index, 1);
  EXPECT_EQ(chosen->EnvironmentNote(), "shard 1/3 (from GTEST_SHARD_INDEX)");
  vars = {{"JOB_COMPLETION_INDEX", "1"}, {"STEPFAULT_TOTAL_SHARDS", "2"}};
  EXPECT_EQ(ResolveShard("", env)->EnvironmentNote(), "shard 2/2 (from JOB_COMPLETION_INDEX)");
  vars.clear();
  auto none = ResolveShard("", env);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->count, 1);
  EXPECT_EQ(none->EnvironmentNote(), "");
  for (const char* bad : {"0x1/4", "1/0x4", "0/4", "5/4", "1/100001", "1", "1/", "/4", "+1/4",
                          "1/4x", "-1/4", "99999999999/4"}) {
    auto r = ResolveShard(bad, env);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("--shard must be I/N")) << bad;
  }
}

using testing::Binary;

int Shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Three shards as three concurrent processes, each told its shard only through the environment (two
// by GoogleTest's convention, one by Kubernetes'), merge into the unsharded report byte for byte.
TEST(ShardedExploreProcesses, ParallelShardsFromTheEnvironmentMergeIntoTheUnshardedReport) {
  namespace fs = std::filesystem;
  const fs::path base = test_env::ScratchDir("shard-env");
  const std::string explore =
      Binary() + " explore --scenario fan-in --store file --actions crash --depth 1 --quiet --out ";
  ASSERT_EQ(Shell(explore + (base / "all").string() + " >/dev/null 2>&1"), 0);
  const std::string parallel =
      "GTEST_SHARD_INDEX=0 GTEST_TOTAL_SHARDS=3 " + explore + (base / "s1").string() +
      " >/dev/null 2>&1 & GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=3 " + explore +
      (base / "s2").string() +
      " >/dev/null 2>&1 & JOB_COMPLETION_INDEX=2 STEPFAULT_TOTAL_SHARDS=3 " + explore +
      (base / "s3").string() + " >/dev/null 2>&1 & wait";
  ASSERT_EQ(Shell(parallel), 0);
  for (const char* s : {"s1", "s2", "s3"}) ASSERT_TRUE(fs::exists(base / s / "report.json")) << s;
  ASSERT_EQ(Shell(Binary() + " report merge " + (base / "s1/report.json").string() + " " +
                  (base / "s2/report.json").string() + " " + (base / "s3/report.json").string() +
                  " --out " + (base / "merged").string() + " >/dev/null 2>&1"),
            0);
  auto all = PosixEnv()->ReadFile((base / "all/report.json").string());
  auto merged = PosixEnv()->ReadFile((base / "merged/report.json").string());
  ASSERT_TRUE(all.ok() && merged.ok());
  EXPECT_EQ(*all, *merged);
  // A shard alone is partial, so the comparison is not vacuous.
  auto one = PosixEnv()->ReadFile((base / "s1/report.json").string());
  ASSERT_TRUE(one.ok());
  EXPECT_NE(*one, *all);
  // A malformed convention is refused before any work.
  EXPECT_EQ(Shell("GTEST_SHARD_INDEX=3 GTEST_TOTAL_SHARDS=3 " + explore + (base / "bad").string() +
                  " >/dev/null 2>&1"),
            2);
  EXPECT_FALSE(fs::exists(base / "bad" / "report.json"));
  fs::remove_all(base);
}

}  // namespace
}  // namespace stepfault::cli
