// Goal: prove that the SQLite checkpoint store never runs in a journal mode other than the one it
// reports: an I/O error while a new database switches to WAL (the switch is a rollback-journal
// transaction whose commit fails after SQLite has already returned the new mode's name) makes the
// store's open fail with a typed I/O error, instead of leaving it in rollback-journal mode, where a
// later power loss rolls back commits it reported durable.
// Method: run fan-in over the SQLite checkpoint store under `ioerror` at the first and second
// journal fsync of the first life (the switch to WAL), with RunPlan, as exploration does; require
// that the first life reports the failed open and that no invariant is violated (the
// committed-durability oracle checks every checkpoint the life observed against the world a power
// loss right after it would leave).
#include <gtest/gtest.h>

#include "faults/plan.h"
#include "properties/life_runner.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

TEST(SqliteStoreUnderFaults, AnIOErrorWhileSwitchingToWalFailsTheOpenAndLosesNoCommit) {
  auto scenario = scenarios::FindScenario("fan-in");
  ASSERT_NE(scenario, nullptr);
  RunConfig config;
  config.checkpoint_store = "sqlite";
  for (const char* text : {"ioerror@fs.fsync[journal]#1", "ioerror@fs.fsync[journal]#2"}) {
    SCOPED_TRACE(text);
    auto plan = faults::ParsePlan(text);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    const Execution ex = RunPlan(*scenario, *plan, config);
    ASSERT_FALSE(ex.lives.empty());
    EXPECT_EQ(ex.lives[0].report.command, "open");
    EXPECT_EQ(ex.lives[0].report.status.code(), StatusCode::kIOError)
        << ex.lives[0].report.status.ToString();
    for (const auto& v : ex.violations) ADD_FAILURE() << v.invariant << ": " << v.message;
    EXPECT_TRUE(ex.completed);
  }
}

}  // namespace
}  // namespace stepfault::properties
