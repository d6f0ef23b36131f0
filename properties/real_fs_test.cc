// Goal: every scenario runs unchanged on the real file system and meets its fault-free reference
// outcome there too (its invariants hold when checked against the real directory).
// Method: drive each built-in scenario's lives on PosixEnv in a scratch directory with SQLite's
// default VFS, the way the command line does, then run its final check.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "engine/clock.h"
#include "engine/env.h"
#include "engine/random.h"
#include "scenarios/registry.h"
#include "scenarios/scenario.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties {
namespace {

TEST(RealFileSystemTest, EveryScenarioCompletesOnTheRealFileSystemWithoutViolations) {
  namespace fs = std::filesystem;
  for (const auto& scenario : scenarios::BuiltinScenarios()) {
    SCOPED_TRACE(scenario->name());
    fs::path dir = test_env::ScratchDir("realfs-" + scenario->name());
    std::vector<scenarios::LifeReport> lives;
    Json memo = Json::object();
    for (int life = 1; life <= 6 && (lives.empty() || !lives.back().completed); ++life) {
      LogicalClock clock;
      scenarios::HostEnv env;
      env.env = PosixEnv();
      env.dir = dir.string();
      env.probe = NullProbe();
      env.clock = &clock;
      env.seed = DeriveSeed(1, "life|" + std::to_string(life));
      env.root_seed = 1;
      env.params = scenario->default_params();
      scenarios::LifeReport report;
      scenario->RunLife(env, lives, &report);
      ASSERT_FALSE(report.final) << report.status.ToString();
      lives.push_back(report);
    }
    ASSERT_TRUE(lives.back().completed) << lives.back().status.ToString();
    LogicalClock clock;
    scenarios::HostEnv env;
    env.env = PosixEnv();
    env.dir = dir.string();
    env.probe = NullProbe();
    env.clock = &clock;
    env.root_seed = 1;
    env.params = scenario->default_params();
    env.oracle_memo = &memo;
    std::vector<scenarios::Violation> violations;
    scenario->Check(env, lives, /*final=*/true, &violations);
    for (const auto& v : violations) ADD_FAILURE() << v.invariant << ": " << v.message;
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace stepfault::properties
