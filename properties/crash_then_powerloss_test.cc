// Goal: prove the recovery rule (MakeInheritedDurable, engine/env.h): a life that recovers from
// what a crashed process left makes it durable before relying on it, so under the strict profile a
// crash in one life followed by a power loss anywhere in the next life violates no invariant, in
// every built-in scenario and over every checkpoint store (the file store, SQLite in WAL and in its
// three rollback-journal modes, where the recovery life rolls back a hot journal).
// Method: for each scenario, run the fault-free plan and record every window of every life; for
// each window w of life L, run `none x (L-1); crash@w` and record the windows of the recovery life
// L+1; for each of those windows v run `...; crash@w; powerloss@v` with RunPlan directly and
// require zero violations. By default the crash windows are those that leave directory entries
// not yet durable (fs.rename, fs.dirsync: where this class of bug lives), each paired with the
// first, middle and last windows of the recovery life, which keeps the run modest;
// STEPFAULT_LONG=1 pairs every crash window with every recovery window (the exhaustive sweep).
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "faults/plan.h"
#include "properties/life_runner.h"
#include "scenarios/registry.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties {
namespace {

using faults::FaultAction;
using faults::FaultActionKind;

// Indexes of the recovery windows to pair with one crash window.
std::vector<size_t> PowerLossSample(size_t n, bool exhaustive) {
  std::set<size_t> picked;
  if (n == 0) return {};
  if (exhaustive) {
    for (size_t i = 0; i < n; ++i) picked.insert(i);
  } else {
    constexpr size_t kPerCrash = 3;
    for (size_t k = 0; k < kPerCrash; ++k) picked.insert(k * (n - 1) / (kPerCrash - 1));
  }
  return {picked.begin(), picked.end()};
}

// Counted apart: a sweep whose crashes never reach a recovery life with a window runs no pair at
// all, and must fail rather than pass on its crash runs alone.
struct SweepResult {
  int64_t crash_runs = 0;             // `...; crash@w`
  int64_t pair_runs = 0;              // `...; crash@w; powerloss@v`, the runs the goal is about
  std::vector<std::string> failures;  // replay command and violations
};

void RunAndRecord(const scenarios::Scenario& scenario, const faults::Plan& plan,
                  const RunConfig& config, SweepResult* out) {
  Execution ex = RunPlan(scenario, plan, config);
  ++out->pair_runs;
  if (ex.violations.empty()) return;
  std::string text = ReplayCommand(scenario.replay_name(), plan, config) + "\n";
  for (const auto& v : ex.violations) text += "  " + v.invariant + ": " + v.message + "\n";
  out->failures.push_back(text);
}

SweepResult Sweep(const scenarios::Scenario& scenario, const RunConfig& config, bool exhaustive) {
  SweepResult out;
  const Execution reference = RunPlan(scenario, faults::Plan{}, config);
  for (size_t life = 0; life < reference.lives.size(); ++life) {
    for (const faults::Window& w : reference.lives[life].windows) {
      const bool entry_point =
          w.point.rfind("fs.rename", 0) == 0 || w.point.rfind("fs.dirsync", 0) == 0;
      if (!exhaustive && !entry_point) continue;
      auto crash = faults::FaultAtWindow(FaultAction::Of(FaultActionKind::kCrash), w);
      if (!crash.ok()) continue;
      faults::Plan plan;
      plan.faults.assign(life, faults::Fault::None());
      plan.faults.push_back(*crash);
      const Execution crashed = RunPlan(scenario, plan, config);
      ++out.crash_runs;
      if (crashed.lives.size() <= life + 1 || crashed.lives[life].death != "crash") continue;
      const auto& recovery = crashed.lives[life + 1].windows;
      for (size_t i : PowerLossSample(recovery.size(), exhaustive)) {
        auto loss =
            faults::FaultAtWindow(FaultAction::Of(FaultActionKind::kPowerLoss), recovery[i]);
        if (!loss.ok()) continue;
        faults::Plan pair = plan;
        pair.faults.push_back(*loss);
        RunAndRecord(scenario, pair, config, &out);
      }
    }
  }
  return out;
}

void ExpectCleanSweep(const std::string& store) {
  const bool exhaustive = test_env::LongRun();
  for (const auto& scenario : scenarios::BuiltinScenarios()) {
    RunConfig config;
    config.checkpoint_store = store;
    SweepResult r = Sweep(*scenario, config, exhaustive);
    EXPECT_GT(r.crash_runs, 0) << scenario->name() << " over the " << store << " store";
    EXPECT_GT(r.pair_runs, 0) << scenario->name() << " over the " << store
                              << " store: no crash-then-powerloss pair ran";
    std::string shown;
    for (size_t i = 0; i < r.failures.size() && i < 5; ++i) shown += r.failures[i];
    EXPECT_TRUE(r.failures.empty())
        << scenario->name() << " over the " << store << " store: " << r.failures.size() << " of "
        << r.pair_runs << " crash-then-powerloss runs violate an invariant:\n"
        << shown;
  }
}

TEST(CrashThenPowerLossTest, StrictProfileIsCleanOverTheFileStore) { ExpectCleanSweep("file"); }

TEST(CrashThenPowerLossTest, StrictProfileIsCleanOverTheSqliteStore) { ExpectCleanSweep("sqlite"); }

TEST(CrashThenPowerLossTest, StrictProfileIsCleanOverTheSqliteRollbackJournalStores) {
  for (const char* store : {"sqlite-persist", "sqlite-truncate", "sqlite-delete"}) {
    ExpectCleanSweep(store);
  }
}

}  // namespace
}  // namespace stepfault::properties
