// Goal: the crash model's self-check is a command a user runs and the replay command of its
// mutants: `stepfault blackbox conformance` exits 0 when the builder builds exactly the catalogued
// crash states, 1 listing the disagreements (INV-BB-MODEL) with a hazard on, 2 for an unknown
// hazard or entry (naming the ones that exist); `stepfault mutants --only blackbox:...` kills each
// crash-model mutant as expected, and its report's replay command reproduces the kill; a run
// command refuses a crash-model hazard (no run carries it) instead of ignoring it.
// Method: run the built binary and read its output, exit codes and report.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/env.h"
#include "tools/cli/cli_test_util.h"

namespace stepfault::cli {
namespace {

namespace fs = std::filesystem;
using testing::Stepfault;

constexpr const char* kHazards[] = {"rename-durable-without-dir-fsync",
                                    "unlink-durable-without-dir-fsync",
                                    "create-durable-without-dir-fsync"};

TEST(BlackboxConformanceCli, TheRealCrashModelConformsAndExitsZero) {
  auto r = Stepfault("blackbox conformance");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("crash model conformance (hazards: none): 53 entries (posix 39, "
                       "ext4-ordered 6, xfs 5, btrfs 3)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("INV-BB-MODEL holds"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("VIOLATION"), std::string::npos) << r.out;
}

TEST(BlackboxConformanceCli, EveryHazardIsAViolationListedByEntryAndExitsOne) {
  const std::map<std::string, std::string> rule = {
      {"rename-durable-without-dir-fsync", "rename-without-dirsync-lost"},
      {"unlink-durable-without-dir-fsync", "unlink-undone-until-dirsync"},
      {"create-durable-without-dir-fsync", "create-missing-until-dirsync"}};
  for (const char* h : kHazards) {
    SCOPED_TRACE(h);
    auto r = Stepfault(std::string("blackbox conformance --hazard ") + h);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("VIOLATION INV-BB-MODEL: " + rule.at(h) + " (catalogue line"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("INV-BB-MODEL violated"), std::string::npos) << r.out;
  }
  // The mutant's name is accepted as well, and --entry narrows the run to one entry.
  auto one = Stepfault(
      "blackbox conformance --hazard blackbox:rename-durable-without-dir-fsync --entry "
      "rename-without-dirsync-lost");
  EXPECT_EQ(one.exit_code, 1) << one.out;
  EXPECT_NE(one.out.find("1 entries"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("in 1 of 1 entries (first: rename-without-dirsync-lost)"),
            std::string::npos)
      << one.out;
  // An entry the hazard does not touch holds with it on.
  auto untouched = Stepfault(
      "blackbox conformance --hazard rename-durable-without-dir-fsync --entry append-unsynced");
  EXPECT_EQ(untouched.exit_code, 0) << untouched.out;
}

TEST(BlackboxConformanceCli, AnUnknownHazardOrEntryExitsTwoNamingWhatExists) {
  auto hazard = Stepfault("blackbox conformance --hazard rename-durable");
  EXPECT_EQ(hazard.exit_code, 2) << hazard.out;
  EXPECT_NE(hazard.out.find("unknown crash-model hazard 'rename-durable'"), std::string::npos)
      << hazard.out;
  for (const char* h : kHazards) EXPECT_NE(hazard.out.find(h), std::string::npos) << hazard.out;
  auto entry = Stepfault("blackbox conformance --entry no-such-entry");
  EXPECT_EQ(entry.exit_code, 2) << entry.out;
  EXPECT_NE(entry.out.find("unknown catalogue entry 'no-such-entry'"), std::string::npos)
      << entry.out;
  EXPECT_NE(entry.out.find("rename-with-dirsync-kept"), std::string::npos) << entry.out;
}

TEST(BlackboxConformanceCli, MutantsKillEveryCrashModelMutantAndItsReplayReproducesTheKill) {
  const std::string out = testing::Scratch("sf_bbmodel", "mutants");
  std::string only;
  for (const char* h : kHazards) only += std::string(" --only blackbox:") + h;
  auto r = Stepfault("mutants" + only + " --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* h : kHazards) {  // the table row: name, verdict, invariant, expected, plan
    const size_t row = r.out.find(std::string("\nblackbox:") + h + " ");
    ASSERT_NE(row, std::string::npos) << r.out;
    const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find(" killed-as-expected "), std::string::npos) << line;
    EXPECT_NE(line.find(" INV-BB-MODEL "), std::string::npos) << line;
  }
  EXPECT_NE(r.out.find("mutants killed: 3/3 (hunted on the crash-state catalogue)"),
            std::string::npos)
      << r.out;
  const auto doc = nlohmann::json::parse(*PosixEnv()->ReadFile(out + "/report.json"));
  ASSERT_EQ(doc["mutants"].size(), 3u);
  for (const auto& m : doc["mutants"]) {
    SCOPED_TRACE(m.dump());
    EXPECT_EQ(m["verdict"], "killed-as-expected");
    EXPECT_EQ(m["invariant"], "INV-BB-MODEL");
    EXPECT_EQ(m["expected"], nlohmann::json::array({"INV-BB-MODEL"}));
    const std::string replay = m["replay"].get<std::string>();
    ASSERT_EQ(replay.rfind("stepfault blackbox conformance --hazard ", 0), 0u) << replay;
    EXPECT_NE(replay.find("--entry " + m["plan"].get<std::string>()), std::string::npos);
    auto again = Stepfault(replay.substr(std::string("stepfault ").size()));
    EXPECT_EQ(again.exit_code, 1) << again.out;
    EXPECT_NE(again.out.find("VIOLATION INV-BB-MODEL: " + m["plan"].get<std::string>()),
              std::string::npos)
        << again.out;
  }
  fs::remove_all(out);
}

TEST(BlackboxConformanceCli, ARunCommandRefusesACrashModelHazardInsteadOfIgnoringIt) {
  auto r = Stepfault(
      "replay --scenario approval --plan none --hazard blackbox:rename-durable-without-dir-fsync");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("stepfault blackbox conformance --hazard rename-durable-without-dir-fsync"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace stepfault::cli
