// Goal: inputs a user writes reach the harness bounded and printed commands are safe (issue 16):
// a JSON scenario that loops ends each life with "executor X loops" after its max_steps instead of
// hanging (item 2); the replay command of a JSON scenario names its file, shell-quoted, so pasting
// it runs that scenario and nothing else (item 5); an oversized JSON scenario is rejected with the
// supported size (item 10).
// Method: load JSON scenarios from text into files with hostile names, run them with RunPlan, and
// feed the printed command words back through /bin/sh.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/env.h"
#include "properties/life_runner.h"
#include "properties/random_schedules.h"
#include "scenarios/json/json_scenario.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties {
namespace {

constexpr const char* kLoop = R"({
  "name": "self-loop", "description": "an executor that sends to itself forever",
  "input": {"type": "Go", "body": {}}, "start": "a",
  "executors": [{"id": "a", "kind": "pass-through"}],
  "edges": [{"kind": "direct", "from": "a", "to": "a"}],
  "outputs": ["a"], "expect": {"effects": [], "outputs": []}, "max_steps": 40
})";

TEST(InputBoundsTest, AJsonScenarioThatLoopsEndsWithTheExecutorNamedInsteadOfHanging) {
  auto scenario = scenarios::ParseJsonScenario(kLoop, "loop.json");
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  Execution ex = RunPlan(**scenario, faults::Plan{}, RunConfig{});
  ASSERT_FALSE(ex.lives.empty());
  const std::string status = ex.lives[0].report.status.ToString();
  EXPECT_NE(status.find("executor 'a' loops: 40 steps without halting"), std::string::npos)
      << status;
  EXPECT_NE(status.find("max_steps"), std::string::npos);
  EXPECT_FALSE(ex.completed);
}

std::vector<std::string> ShellWords(const std::string& command) {
  // The words the shell makes of `command`, one per line (the words themselves have no newline).
  const std::string cmd = "set -- " + command + "; for w; do printf '%s\\n' \"$w\"; done";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  ::pclose(p);
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1)
    words.push_back(out.substr(start, nl - start));
  return words;
}

TEST(InputBoundsTest, TheReplayCommandOfAJsonScenarioNamesItsFileShellQuoted) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("sf bounds $(touch pwned) 'q' " + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "review pipeline.json").string();
  fs::copy_file(test_env::SourcePath("scenarios/json/examples/review-pipeline.json"), path,
                fs::copy_options::overwrite_existing);
  auto scenario = scenarios::LoadJsonScenario(PosixEnv(), path);
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  auto plan = faults::ParsePlan("none;crash@effect.commit.after#1");
  ASSERT_TRUE(plan.ok());
  RunConfig config;
  config.seed = 7;
  const std::string command = ReplayCommandWithParams(**scenario, *plan, config, Json());
  const std::vector<std::string> words = ShellWords(command);
  ASSERT_GE(words.size(), 6u) << command;
  EXPECT_EQ(words[0], "stepfault");
  EXPECT_EQ(words[1], "replay");
  EXPECT_EQ(words[2], "--scenario");
  EXPECT_EQ(words[3], path) << command;
  EXPECT_EQ(words[4], "--plan");
  EXPECT_EQ(words[5], "none;crash@effect.commit.after#1") << command;
  EXPECT_FALSE(fs::exists("pwned"));
  fs::remove_all(dir);
}

// A linear chain of `n` executors (e0 -> ... -> en-1, pass-through) as scenario text.
std::string LinearChain(size_t n) {
  std::string executors, edges;
  for (size_t i = 0; i < n; ++i) {
    executors += std::string(i ? "," : "") + "{\"id\":\"e" + std::to_string(i) +
                 "\",\"kind\":\"pass-through\"}";
    if (i + 1 < n) {
      edges += std::string(i ? "," : "") + "{\"kind\":\"direct\",\"from\":\"e" + std::to_string(i) +
               "\",\"to\":\"e" + std::to_string(i + 1) + "\"}";
    }
  }
  return R"({"name":"big","description":"d","input":{"type":"T","body":{}},)"
         R"("start":"e0","executors":[)" +
         executors + R"(],"edges":[)" + edges + R"(],"outputs":["e)" + std::to_string(n - 1) +
         R"("],)"
         R"("expect":{"effects":[],"outputs":[]}})";
}

TEST(InputBoundsTest, AJsonScenarioOfTheSupportedSizeIsAcceptedAndOneMoreExecutorIsRejected) {
  auto largest = scenarios::ParseJsonScenario(LinearChain(10000), "largest.json");
  EXPECT_TRUE(largest.ok()) << largest.status().ToString();
  auto scenario = scenarios::ParseJsonScenario(LinearChain(10001), "big.json");
  ASSERT_FALSE(scenario.ok());
  EXPECT_NE(scenario.status().message().find("declares 10001 executors; the supported size is at "
                                             "most 10000"),
            std::string::npos)
      << scenario.status().message();
  // The error says why the limit exists and what to do.
  EXPECT_NE(scenario.status().message().find("split the workflow"), std::string::npos)
      << scenario.status().message();
  EXPECT_EQ(scenario.status().code(), StatusCode::kInvalidArgument);
}

TEST(InputBoundsTest, MoreEdgesThanTheSupportedSizeAreRejectedWithIt) {
  std::string edges;
  for (int i = 0; i < 40001; ++i) {
    edges += std::string(i ? "," : "") + R"({"kind":"direct","from":"a","to":"a"})";
  }
  const std::string text = R"({"name":"big","description":"d","input":{"type":"T","body":{}},)"
                           R"("start":"a","executors":[{"id":"a","kind":"pass-through"}],)"
                           R"("edges":[)" +
                           edges + R"(],"outputs":[],"expect":{"effects":[],"outputs":[]}})";
  ASSERT_LE(text.size(), size_t{4} << 20) << "the byte limit would answer first";
  auto scenario = scenarios::ParseJsonScenario(text, "edges.json");
  ASSERT_FALSE(scenario.ok());
  EXPECT_NE(scenario.status().message().find("declares 40001 edges; the supported size is at most "
                                             "40000"),
            std::string::npos)
      << scenario.status().message();
}

}  // namespace
}  // namespace stepfault::properties
