// The bounded differential against the real MAF: every shipped JSON scenario and 20 seeded random
// workflows, in the fault-free run and a live restore and a fresh resume from every checkpoint,
// with no undocumented difference. Needs maf-runner (dotnet build maf -c Release): without it the
// test is skipped, unless STEPFAULT_REQUIRE_DOTNET=1 (tools/test sets it when dotnet is on PATH),
// when a missing runner fails the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "properties/differential/differential.h"
#include "properties/differential/workflow_gen.h"

namespace stepfault::properties {
namespace {

namespace fs = std::filesystem;

std::string SourceDir() {
  const char* env = std::getenv("STEPFAULT_SOURCE_DIR");
  return env != nullptr ? env : ".";
}

void ExpectNoUndocumented(const WorkflowComparison& w) {
  EXPECT_TRUE(w.error.empty()) << w.file << ": " << w.error;
  EXPECT_GT(w.modes, 0) << w.file;
  for (const auto& [mode, d] : w.differences) {
    EXPECT_FALSE(d.deviation.empty())
        << w.file << " " << mode << ": " << d.kind << " at " << d.where << ": MAF " << d.maf.dump()
        << ", engine " << d.engine.dump() << "\n  replay: stepfault differential --workflow "
        << w.file << " --mode " << mode;
  }
}

TEST(DifferentialAgainstMaf, ShippedAndTwentyRandomWorkflowsHaveNoUndocumentedDifference) {
  const fs::path runner = fs::path(SourceDir()) / "maf/artifacts/bin/Runner/release/maf-runner";
  if (!fs::exists(runner)) {
    const char* require = std::getenv("STEPFAULT_REQUIRE_DOTNET");
    if (require != nullptr && std::string(require) == "1") {
      FAIL() << "STEPFAULT_REQUIRE_DOTNET=1 but " << runner
             << " is missing: build it with `dotnet build maf -c Release`";
    }
    GTEST_SKIP() << runner << " is missing (dotnet build maf -c Release)";
  }
  int checkpoints = 0;
  for (const auto& e : fs::directory_iterator(fs::path(SourceDir()) / "scenarios/json/examples")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    WorkflowComparison w = CompareWorkflow(runner.string(), e.path().string(), text.str());
    checkpoints += w.checkpoints;
    ExpectNoUndocumented(w);
  }
  const fs::path dir =
      fs::temp_directory_path() / ("stepfault-diff-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (int i = 0; i < 20; ++i) {
    const fs::path file = dir / ("gen-0-" + std::to_string(i) + ".json");
    const std::string text = GenerateWorkflow(0, i);
    std::ofstream(file) << text;
    WorkflowComparison w = CompareWorkflow(runner.string(), file.string(), text);
    checkpoints += w.checkpoints;
    ExpectNoUndocumented(w);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  EXPECT_GT(checkpoints, 20);  // restore and resume were exercised
}

}  // namespace
}  // namespace stepfault::properties
