// Goal: artifact-boundary is genuinely explored over both checkpoint stores (issue 12, point 4 of
// the remaining work): its recovery run keeps its checkpoints in the configured durable store, so
// the SQLite variant reaches windows the file variant does not (and the other way round), and
// every crash and power loss at depth 1 keeps every invariant over both.
// Method: explore the default variant at depth 1 with crash and power loss, once per store, and
// compare the recovery life's windows (the SQLite variant must have some, and more in SQLite files
// than the ledger alone gives) and the verdicts; and run Explore over both variants.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "properties/seam_scenario_test_util.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

std::set<std::string> RecoverWindows(const ScenarioExploration& e) {
  std::set<std::string> out;
  for (const reports::Window& w : e.report.windows) {
    if (w.id.starts_with("recover:")) out.insert(w.point);
  }
  return out;
}

// The recovery life's windows in SQLite files ([db], [journal]). The business ledger is SQLite in
// both variants, so this counts the ledger's windows over the file store and the ledger's plus the
// checkpoint database's over the SQLite store.
size_t RecoverSqliteFileWindows(const ScenarioExploration& e) {
  size_t n = 0;
  for (const reports::Window& w : e.report.windows) {
    const bool in_sqlite_file =
        w.point.find("[db]") != std::string::npos || w.point.find("[journal]") != std::string::npos;
    if (w.id.starts_with("recover:") && in_sqlite_file) ++n;
  }
  return n;
}

TEST(ArtifactBoundaryStoresTest, TheRecoveryRunIsExploredOverTheFileAndTheSqliteStore) {
  auto scenario = scenarios::FindScenario("artifact-boundary");
  ASSERT_NE(scenario, nullptr);
  const ScenarioExploration file =
      testing::ExploreDepth1(*scenario, {"crash", "powerloss"}, "file");
  const ScenarioExploration sqlite =
      testing::ExploreDepth1(*scenario, {"crash", "powerloss"}, "sqlite");
  EXPECT_TRUE(file.violations.empty()) << testing::Describe(file);
  EXPECT_TRUE(sqlite.violations.empty()) << testing::Describe(sqlite);
  const std::set<std::string> in_file = RecoverWindows(file);
  const std::set<std::string> in_sqlite = RecoverWindows(sqlite);
  // The file store writes checkpoint files; the SQLite store writes its database and journal, so
  // its recovery life has windows (it is explored at all) and more SQLite-file windows than the
  // ledger alone gives the file variant (the checkpoint database's own).
  ASSERT_FALSE(in_sqlite.empty()) << "the SQLite variant's recovery run has no window";
  EXPECT_TRUE(in_file.count("fs.rename[checkpoint]") > 0) << ::testing::PrintToString(in_file);
  EXPECT_EQ(in_sqlite.count("fs.rename[checkpoint]"), 0u) << ::testing::PrintToString(in_sqlite);
  EXPECT_GT(RecoverSqliteFileWindows(sqlite), RecoverSqliteFileWindows(file))
      << "the SQLite store's checkpoint database adds no recovery window";
  EXPECT_NE(in_file, in_sqlite);
}

// `explore` runs every store variant (file, SQLite in WAL and in its three rollback-journal modes):
// none is skipped as indistinct (the host opens its recovery store in every life, so even the
// fault-free runs differ).
TEST(ArtifactBoundaryStoresTest, ExploreSkipsNoStoreVariant) {
  ExploreOptions o;
  o.depth = 1;
  o.determinism_every = 0;
  o.action_kinds = {"crash"};
  const reports::Report report = Explore({scenarios::FindScenario("artifact-boundary")}, o, "test");
  ASSERT_EQ(report.scenarios.size(), CheckpointStoreNames().size());
  for (const reports::ScenarioReport& s : report.scenarios) {
    EXPECT_EQ(s.skipped, "") << s.name;
    EXPECT_GT(s.windows.size(), 0u) << s.name;
  }
}

}  // namespace
}  // namespace stepfault::properties
