// The bounded differential against the real MAF: every shipped JSON scenario and 20 seeded random
// workflows, in the fault-free run and a live restore and a fresh resume from every checkpoint,
// with MAF in Lockstep and in OffThread execution, with no undocumented difference; and the
// replay command the differential prints for a restore the engine refuses gives the run's
// verdict. Needs maf-runner (dotnet build maf -c Release): without it the
// test is skipped, unless STEPFAULT_REQUIRE_DOTNET=1 (tools/test sets it when dotnet is on PATH),
// when a missing runner fails the test.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "properties/differential/differential.h"
#include "properties/differential/workflow_gen.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties {
namespace {

namespace fs = std::filesystem;

std::string SourceDir() {
  const char* env = std::getenv("STEPFAULT_SOURCE_DIR");
  return env != nullptr ? env : ".";
}

constexpr MafExecution kExecutions[] = {MafExecution::kLockstep, MafExecution::kOffThread};

void ExpectNoUndocumented(const WorkflowComparison& w) {
  EXPECT_TRUE(w.error.empty()) << w.file << ": " << w.error;
  EXPECT_GT(w.modes, 0) << w.file;
  for (const auto& [mode, d] : w.differences) {
    EXPECT_FALSE(d.deviation.empty())
        << w.file << " " << mode << " (" << ExecutionName(w.execution) << "): " << d.kind << " at "
        << d.where << ": MAF " << d.maf.dump() << ", engine " << d.engine.dump()
        << "\n  replay: stepfault differential --workflow " << w.file << " --mode " << mode
        << " --execution " << ExecutionName(w.execution);
  }
}

// maf-runner's path; empty (after failing or skipping the test) when it is not built.
fs::path RunnerOrSkip() {
  const fs::path runner = fs::path(SourceDir()) / "maf/artifacts/bin/Runner/release/maf-runner";
  if (fs::exists(runner)) return runner;
  const char* require = std::getenv("STEPFAULT_REQUIRE_DOTNET");
  if (require != nullptr && std::string(require) == "1") {
    ADD_FAILURE() << "STEPFAULT_REQUIRE_DOTNET=1 but " << runner
                  << " is missing: build it with `dotnet build maf -c Release`";
  }
  return {};
}

TEST(DifferentialAgainstMaf, ShippedAndTwentyRandomWorkflowsHaveNoUndocumentedDifference) {
  const fs::path runner = RunnerOrSkip();
  if (runner.empty()) GTEST_SKIP() << "maf-runner is missing (dotnet build maf -c Release)";
  int checkpoints = 0;
  for (const auto& e : fs::directory_iterator(fs::path(SourceDir()) / "scenarios/json/examples")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    for (MafExecution x : kExecutions) {
      WorkflowComparison w = CompareWorkflow(runner.string(), e.path().string(), text.str(), x);
      checkpoints += w.checkpoints;
      ExpectNoUndocumented(w);
    }
  }
  const fs::path dir =
      fs::temp_directory_path() / ("stepfault-diff-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (int i = 0; i < 20; ++i) {
    const fs::path file = dir / ("gen-0-" + std::to_string(i) + ".json");
    const std::string text = GenerateWorkflow(0, i);
    std::ofstream(file) << text;
    for (MafExecution x : kExecutions) {
      WorkflowComparison w = CompareWorkflow(runner.string(), file.string(), text, x);
      checkpoints += w.checkpoints;
      ExpectNoUndocumented(w);
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  EXPECT_GT(checkpoints, 40);  // restore and resume were exercised, in both executions
}

// The exit status of `stepfault differential ARGS` (the binary beside this test's).
int Differential(const std::string& args) {
  const std::string command =
      test_env::BinDir() + "/stepfault differential " + args + " >/dev/null 2>&1";
  const int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// review-pipeline's notifier fails once, so the engine ends its run and refuses a live restore of
// it; Lockstep MAF restores. The whole run claims that restore's differences
// (failed-step-ends-run), so its printed replay command must exit 0 as well (it exited 2, bad
// input, when the engine's refusal was taken for an error). Under OffThread, where MAF ends the
// run too and its restore runs nothing, offthread-restore-of-ended-run-is-inert claims it.
TEST(DifferentialAgainstMaf, AReplayOfARefusedRestoreGivesTheRunsVerdict) {
  const fs::path runner = RunnerOrSkip();
  if (runner.empty()) GTEST_SKIP() << "maf-runner is missing (dotnet build maf -c Release)";
  const std::string file = SourceDir() + "/scenarios/json/examples/review-pipeline.json";
  const std::string text = [&] {
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  WorkflowComparison w = CompareWorkflow(runner.string(), file, text, MafExecution::kLockstep);
  std::string refused;
  for (const auto& [mode, d] : w.differences) {
    if (mode.starts_with("restore:") && d.deviation == "failed-step-ends-run") refused = mode;
  }
  ASSERT_FALSE(refused.empty()) << "no refused restore claimed by failed-step-ends-run";
  EXPECT_EQ(Differential("--workflow " + file + " --mode " + refused +
                         " --execution lockstep --maf " + runner.string()),
            0);
  EXPECT_EQ(Differential("--workflow " + file + " --mode " + refused +
                         " --execution offthread --maf " + runner.string()),
            0);
  EXPECT_EQ(Differential("--workflow " + file + " --mode " + refused +
                         " --execution sideways --maf " + runner.string()),
            2);
}

}  // namespace
}  // namespace stepfault::properties
