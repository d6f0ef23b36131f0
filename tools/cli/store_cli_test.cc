// Goal: the SQLite store's rollback-journal modes are stores of the command line like `file` and
// `sqlite` (issue 15: every store mode is explored like the others): the replay command the harness
// prints for a plan in a `store=sqlite-persist` variant reproduces that run exactly, `explore
// --store` explores the named stores' variants alone, and an unknown store name is a usage error
// (exit 2) that lists the valid ones.
// Method: the plan crashes the first life at the last journal write of sqlite-persist's fault-free
// run, is run in process with RunPlan, and its ReplayCommand is run as a separate process with
// --trace: the printed trace must be the in-process trace byte for byte, and the same plan replayed
// over `sqlite` (WAL; its -wal file has the journal's role, so the window exists there too) must
// print another trace. explore --store runs in a scratch directory and its report.json is read.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "faults/plan.h"
#include "properties/life_runner.h"
#include "scenarios/registry.h"
#include "tools/cli/cli_test_util.h"

namespace stepfault::cli {
namespace {

using testing::ProcessRun;
using testing::Stepfault;

// The last window on the rollback journal in the fault-free run of fan-in over `store`.
std::optional<faults::Window> LastJournalWrite(const scenarios::Scenario& s,
                                               const std::string& store) {
  properties::RunConfig config;
  config.checkpoint_store = store;
  const properties::Execution ex = properties::RunPlan(s, faults::Plan{}, config);
  std::optional<faults::Window> last;
  for (const faults::Window& w : ex.lives.at(0).windows) {
    if (w.point == "fs.write[journal]") last = w;
  }
  return last;
}

TEST(StoreCliTest, TheReplayCommandOfAPlanOverSqlitePersistReproducesTheRun) {
  auto fan_in = scenarios::FindScenario("fan-in");
  ASSERT_NE(fan_in, nullptr);
  const std::optional<faults::Window> window = LastJournalWrite(*fan_in, "sqlite-persist");
  ASSERT_TRUE(window.has_value());
  auto plan =
      faults::ParsePlan("crash@" + window->point + "#" + std::to_string(window->occurrence));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  properties::RunConfig config;
  config.checkpoint_store = "sqlite-persist";
  const properties::Execution ex = properties::RunPlan(*fan_in, *plan, config);
  ASSERT_GE(ex.lives.size(), 2u);
  EXPECT_FALSE(ex.lives[0].death.empty()) << "the plan's crash never struck";
  const std::string command = properties::ReplayCommand("fan-in", *plan, config);
  ASSERT_NE(command.find("--store sqlite-persist"), std::string::npos) << command;
  const std::string prefix = "stepfault ";
  ASSERT_EQ(command.rfind(prefix, 0), 0u) << command;
  const ProcessRun replay = Stepfault(command.substr(prefix.size()) + " --trace");
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_EQ(replay.out.substr(0, ex.trace.size()), ex.trace);
  // The same plan over WAL (whose -wal file has the journal's role) is another run: the store name
  // is what chose the mode.
  const std::string without_store =
      command.substr(prefix.size(), command.find(" --store") - prefix.size());
  const ProcessRun wal = Stepfault(without_store + " --store sqlite --trace");
  EXPECT_NE(wal.out.substr(0, ex.trace.size()), ex.trace);
}

TEST(StoreCliTest, AnUnknownStoreIsAUsageErrorListingTheStores) {
  for (const char* args : {"replay fan-in --plan none --store sqlite-wal",
                           "explore --scenario fan-in --depth 1 --store sqlite-wal --out /tmp/x"}) {
    SCOPED_TRACE(args);
    const ProcessRun r = Stepfault(args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("file,sqlite,sqlite-persist,sqlite-truncate,sqlite-delete"),
              std::string::npos)
        << r.out;
  }
}

TEST(StoreCliTest, ExploreStoreExploresOnlyThatStoresVariants) {
  const std::string dir = testing::Scratch("sf_store", "explore");
  const ProcessRun r = Stepfault(
      "explore --scenario restore-pruning --depth 1 --actions crash "
      "--store sqlite-truncate --jobs 2 --quiet --out " +
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(dir + "/report.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  ASSERT_EQ(report["scenarios"].size(), 1u) << report["scenarios"].dump();
  EXPECT_EQ(report["scenarios"][0]["name"], "restore-pruning [store=sqlite-truncate]");
  EXPECT_NE(report["command"].get<std::string>().find("--store sqlite-truncate"),
            std::string::npos);
  EXPECT_GT(report["runs"].get<int64_t>(), 10);
}

}  // namespace
}  // namespace stepfault::cli
