// Goal: the scenario with several actors is part of the ordinary commands: `list scenarios` and
// `list hazards` name it and its mutants; `explore --scenario interactive-flow --schedules N`
// writes the four reports with its schedules block (strict: exit 0); with a flow hazard it exits 1
// and its counterexample's replay command (--plan and --schedule) reproduces the violation;
// `mutants --only host:flow-...` prints the verdict and the expected invariant.
// Method: run the built binary and read its output, exit codes and report.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/env.h"
#include "tools/cli/cli_test_util.h"

namespace stepfault::cli {
namespace {

namespace fs = std::filesystem;
using testing::Stepfault;

TEST(ExploreFlowCli, ListNamesTheScenarioAndItsMutants) {
  auto scenarios = Stepfault("list scenarios");
  EXPECT_EQ(scenarios.exit_code, 0);
  EXPECT_NE(scenarios.out.find("interactive-flow"), std::string::npos) << scenarios.out;
  EXPECT_NE(scenarios.out.find("several actors: explored by schedules"), std::string::npos);
  auto hazards = Stepfault("list hazards");
  EXPECT_NE(hazards.out.find("host:flow-expiry-ignores-acceptance"), std::string::npos);
  // A command that runs one host per life refuses it, saying what explores it (exit 2).
  auto check = Stepfault("check --scenario interactive-flow --out /tmp/sf_flow_never");
  EXPECT_EQ(check.exit_code, 2) << check.out;
  EXPECT_NE(check.out.find("explored by schedules"), std::string::npos) << check.out;
}

TEST(ExploreFlowCli, ExploreWritesTheSchedulesBlockAndAHazardReplaysFromItsCommand) {
  const std::string out = testing::Scratch("sf_flow", "explore");
  auto strict = Stepfault(
      "explore --scenario interactive-flow --depth 1 --schedules 12 --quiet "
      "--out " +
      out + "/strict");
  ASSERT_EQ(strict.exit_code, 0) << strict.out;
  EXPECT_NE(strict.out.find("interactive-flow   schedules 12/12 (pct)"), std::string::npos)
      << strict.out;
  const auto doc = nlohmann::json::parse(*PosixEnv()->ReadFile(out + "/strict/report.json"));
  EXPECT_EQ(doc["schema_version"], 4);
  EXPECT_EQ(doc["command"],
            "stepfault explore --scenario interactive-flow --depth 1 --profile strict --seed 0 "
            "--schedules 12");
  ASSERT_EQ(doc["scenarios"].size(), 1u);
  EXPECT_EQ(doc["scenarios"][0]["schedules"]["explored"], 12);
  EXPECT_EQ(doc["coverage"]["cells_total"], 0);
  const std::string md = *PosixEnv()->ReadFile(out + "/strict/summary.md");
  EXPECT_NE(md.find("Schedules (`interactive-flow`"), std::string::npos) << md;

  auto hazard = Stepfault(
      "explore --scenario interactive-flow --depth 1 --schedules 12 --quiet "
      "--hazard host:flow-duplicate-response-resumes-twice --out " +
      out + "/hazard");
  ASSERT_EQ(hazard.exit_code, 1) << hazard.out;
  const auto bad = nlohmann::json::parse(*PosixEnv()->ReadFile(out + "/hazard/report.json"));
  std::string replay;
  for (const auto& v : bad["violations"]) {
    if (v["invariant"] == "INV-FLOW-NO-DOUBLE-RESUME") replay = v["replay"].get<std::string>();
  }
  ASSERT_EQ(replay.rfind("stepfault replay --scenario interactive-flow --plan ", 0), 0u) << replay;
  EXPECT_NE(replay.find(" --schedule '"), std::string::npos) << replay;
  auto again = Stepfault(replay.substr(std::string("stepfault ").size()));
  EXPECT_EQ(again.exit_code, 1) << again.out;
  EXPECT_NE(again.out.find("VIOLATION INV-FLOW-NO-DOUBLE-RESUME"), std::string::npos) << again.out;
  fs::remove_all(out);
}

TEST(ExploreFlowCli, BadSchedulesAreRejectedBeforeTheRun) {
  for (const char* bad : {"0", "-3", "12x", "1000001"}) {
    auto r = Stepfault(std::string("explore --scenario interactive-flow --schedules ") + bad +
                       " --out /tmp/sf_flow_never");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out;
  }
  EXPECT_FALSE(fs::exists("/tmp/sf_flow_never"));
}

// Before: the gate compared 0 cells with the minimum and exited 3 after the whole run.
TEST(ExploreFlowCli, ACellCoverageGateOnTheScheduleScenarioAloneIsRejectedSayingWhy) {
  auto r = Stepfault(
      "explore --scenario interactive-flow --min-coverage 50 --quiet --out /tmp/sf_flow_never");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("explored by schedules"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("/tmp/sf_flow_never"));
}

TEST(ExploreFlowCli, MutantsPrintsTheVerdictAndTheExpectedInvariant) {
  const std::string out = testing::Scratch("sf_flow", "mutants");
  auto r = Stepfault("mutants --only host:flow-resume-latest-revision --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("host:flow-resume-latest-revision              killed-as-expected "
                       "INV-FLOW-BINDING"),
            std::string::npos)
      << r.out;
  const auto doc = nlohmann::json::parse(*PosixEnv()->ReadFile(out + "/report.json"));
  ASSERT_EQ(doc["mutants"].size(), 1u);
  EXPECT_EQ(doc["mutants"][0]["verdict"], "killed-as-expected");
  EXPECT_NE(doc["mutants"][0]["replay"].get<std::string>().find("--schedule"), std::string::npos);
  fs::remove_all(out);
}

}  // namespace
}  // namespace stepfault::cli
