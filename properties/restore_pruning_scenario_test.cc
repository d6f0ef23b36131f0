// Goal: the restore-pruning scenario holds its invariants under the strict engine, fault-free and
// under every single fault at every window, and it catches the three mutants it is built for
// (prune on read, non-atomic restore, stale responses kept).
// Method: run the scenario through properties::RunPlan. The fault-free run is recorded once; its
// lives' windows are enumerated and every applicable action of {crash, powerloss, ioerror EIO,
// ioerror ENOSPC} plus the scenario's recovery actions is injected at each of them (with 'none'
// faults for the earlier lives). The mutants run fault-free with their switch on and must produce
// a violation with the expected invariant id.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>

#include "faults/points.h"
#include "properties/life_runner.h"
#include "scenarios/registry.h"
#include "scenarios/restore_pruning/restore_pruning.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties {
namespace {

constexpr int kLivesMax = 10;  // six cases, one per life, plus retries after a fault

RunConfig StrictConfig() {
  RunConfig config;
  config.seed = 11;
  config.lives_max = kLivesMax;
  return config;
}

std::set<std::string> InvariantsOf(const Execution& ex) {
  std::set<std::string> out;
  for (const auto& v : ex.violations) out.insert(v.invariant);
  return out;
}

faults::Plan PlanAt(size_t life_index, const faults::Fault& fault) {
  faults::Plan plan;
  for (size_t i = 0; i < life_index; ++i) plan.faults.push_back(faults::Fault::None());
  plan.faults.push_back(fault);
  return plan;
}

// Files a life's restore fact shows as removed.
std::set<std::string> Removed(const Json& restore) {
  std::set<std::string> out;
  for (const auto& [name, crc] : restore["before"].items()) {
    if (!restore["after"].contains(name)) out.insert(name);
  }
  return out;
}

TEST(RestorePruningScenarioTest, FaultFreeRunCompletesEveryCaseWithoutViolationsDeterministically) {
  auto scenario = scenarios::MakeRestorePruningScenario();
  Execution a = RunPlan(*scenario, faults::Plan{}, StrictConfig());
  ASSERT_TRUE(a.completed) << a.trace;
  EXPECT_TRUE(a.violations.empty()) << a.trace;
  ASSERT_EQ(a.lives.size(), 6u) << a.trace;  // fits the harness's default lives_max
  EXPECT_EQ(a.lives[2].report.command, "case 3: executor fails during restore");
  // Every case really ran its attempts: 4 mutated workflows, 3 malformed checkpoints, 1 + 2.
  const size_t expected_attempts[] = {4, 3, 1, 2, 0, 0};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.lives[i].report.facts.value("attempts", Json::array()).size(), expected_attempts[i])
        << "life " << i + 1 << "\n"
        << a.trace;
  }
  // Case 3 compared what the live run committed after its failed restore with what an untouched
  // resume of the same checkpoint commits, both decoded from checkpoint bytes: equal and not empty
  // (the run has steps left before its request, so a half-restore shows).
  const Json& case3 = a.lives[2].report.facts["attempts"][0];
  EXPECT_EQ(case3["code"], "FailedPrecondition") << case3.dump();
  ASSERT_TRUE(case3["snapshot_before"].is_array()) << case3.dump();
  EXPECT_FALSE(case3["snapshot_before"].empty()) << case3.dump();
  EXPECT_EQ(case3["snapshot_before"], case3["snapshot_after"]) << case3.dump();
  EXPECT_TRUE(case3["snapshot_before"][0].contains("state")) << case3.dump();
  // Case 5 pruned the chain's ancestors; case 6 pruned only the restored checkpoint's parent and
  // kept the later checkpoint and the malformed siblings.
  const Json& case5 = a.lives[4].report.facts["restores"][0];
  EXPECT_GE(Removed(case5).size(), 3u) << case5.dump();
  const Json& case6 = a.lives[5].report.facts["restores"][0];
  EXPECT_EQ(Removed(case6).size(), 1u) << case6.dump();
  EXPECT_GE(case6["after"].size(), 6u) << case6.dump();
  EXPECT_EQ(a.lives[4].report.facts["stale_response"]["pending_after"].size(), 1u);

  Execution b = RunPlan(*scenario, faults::Plan{}, StrictConfig());
  EXPECT_EQ(a.trace, b.trace);
}

TEST(RestorePruningScenarioTest, WindowsAreLabelledByCaseAndPruning) {
  auto scenario = scenarios::MakeRestorePruningScenario();
  Execution ref = RunPlan(*scenario, faults::Plan{}, StrictConfig());
  std::set<std::string> labels;
  for (const LifeRecord& life : ref.lives) {
    for (const faults::Window& w : life.windows) {
      labels.insert(scenario->BusinessWindow(life.report.command, w.point));
    }
  }
  EXPECT_TRUE(labels.count("case 3: executor fails during restore"))
      << ::testing::PrintToString(labels);
  EXPECT_TRUE(labels.count("pruning after a successful restore"))
      << ::testing::PrintToString(labels);
  EXPECT_TRUE(labels.count("building the checkpoint chain")) << ::testing::PrintToString(labels);
  EXPECT_FALSE(labels.count("")) << ::testing::PrintToString(labels);
}

// Every window x {crash, powerloss, ioerror EIO, ioerror ENOSPC}, and the recovery actions at
// host.resume: zero violations, and every run completes.
TEST(RestorePruningScenarioTest, EverySingleFaultAtEveryWindowKeepsEveryInvariantUnderStrict) {
  auto scenario = scenarios::MakeRestorePruningScenario();
  const RunConfig config = StrictConfig();
  Execution ref = RunPlan(*scenario, faults::Plan{}, config);
  ASSERT_TRUE(ref.completed) << ref.trace;
  std::vector<faults::FaultAction> actions = {
      faults::FaultAction::Of(faults::FaultActionKind::kCrash),
      faults::FaultAction::Of(faults::FaultActionKind::kPowerLoss),
      faults::FaultAction::IOError(faults::IOErrorKind::kEIO),
      faults::FaultAction::IOError(faults::IOErrorKind::kENOSPC)};
  for (const faults::FaultAction& a : scenario->RecoveryActions()) actions.push_back(a);
  int runs = 0, deaths = 0;
  size_t max_lives = 0;
  for (size_t life = 0; life < ref.lives.size(); ++life) {
    for (const faults::Window& w : ref.lives[life].windows) {
      for (const faults::FaultAction& action : actions) {
        if (!faults::IsApplicable(action, w.point)) continue;
        auto fault = faults::FaultAtWindow(action, w);
        ASSERT_TRUE(fault.ok()) << fault.status().ToString();
        const faults::Plan plan = PlanAt(life, *fault);
        Execution ex = RunPlan(*scenario, plan, config);
        ++runs;
        deaths += ex.lives[life].death.empty() ? 0 : 1;
        max_lives = std::max(max_lives, ex.lives.size());
        ASSERT_TRUE(ex.violations.empty() && ex.completed)
            << ReplayCommand(scenario->name(), plan, config) << "\n"
            << ex.trace;
      }
    }
  }
  EXPECT_GT(runs, 300);
  EXPECT_GT(deaths, 100);
  // One retry at most: an explorer running this scenario needs lives_max >= 7.
  EXPECT_LE(max_lives, 7u);
}

// STEPFAULT_LONG=1: every action the explorer tries at every window (corruptions included), not
// only the four the default sweep covers.
TEST(RestorePruningScenarioTest, EveryApplicableActionAtEveryWindowKeepsEveryInvariantLong) {
  STEPFAULT_SKIP_UNLESS_LONG();
  auto scenario = scenarios::MakeRestorePruningScenario();
  const RunConfig config = StrictConfig();
  Execution ref = RunPlan(*scenario, faults::Plan{}, config);
  ASSERT_TRUE(ref.completed) << ref.trace;
  const std::vector<faults::FaultAction> recovery = scenario->RecoveryActions();
  int runs = 0;
  for (size_t life = 0; life < ref.lives.size(); ++life) {
    for (const faults::Window& w : ref.lives[life].windows) {
      for (const faults::FaultAction& action : faults::ApplicableFaultActions(w.point)) {
        if (faults::IsRecoverySide(action) &&
            std::find(recovery.begin(), recovery.end(), action) == recovery.end()) {
          continue;
        }
        auto fault = faults::FaultAtWindow(action, w);
        ASSERT_TRUE(fault.ok()) << fault.status().ToString();
        const faults::Plan plan = PlanAt(life, *fault);
        Execution ex = RunPlan(*scenario, plan, config);
        ++runs;
        EXPECT_TRUE(ex.violations.empty()) << ReplayCommand(scenario->name(), plan, config) << "\n"
                                           << ex.trace;
      }
    }
  }
  EXPECT_GT(runs, 300);
}

// A crash or power loss between two deletes of a prune leaves a store whose ancestry still holds,
// and the rerun of the case finishes the prune.
TEST(RestorePruningScenarioTest,
     ADeathInTheMiddleOfPruningLeavesAConsistentStoreThatIsPrunedAgain) {
  auto scenario = scenarios::MakeRestorePruningScenario();
  const RunConfig config = StrictConfig();
  Execution ref = RunPlan(*scenario, faults::Plan{}, config);
  const size_t case5 = 4;
  int deletes = 0;
  for (const faults::Window& w : ref.lives[case5].windows)
    deletes += w.point == "fs.unlink[checkpoint]";
  ASSERT_GE(deletes, 3) << "case 5 must prune several ancestors";
  for (auto kind : {faults::FaultActionKind::kCrash, faults::FaultActionKind::kPowerLoss}) {
    auto fault = faults::FaultAtWindow(faults::FaultAction::Of(kind),
                                       faults::Window{"fs.unlink[checkpoint]", 2});
    ASSERT_TRUE(fault.ok());
    Execution ex = RunPlan(*scenario, PlanAt(case5, *fault), config);
    ASSERT_GE(ex.lives.size(), case5 + 2) << ex.trace;
    EXPECT_FALSE(ex.lives[case5].death.empty()) << ex.trace;
    EXPECT_TRUE(ex.completed) << ex.trace;
    EXPECT_TRUE(ex.violations.empty()) << ex.trace;
    // The rerun of case 5 pruned what the dead life had not.
    EXPECT_EQ(ex.lives[case5 + 1].report.command, ref.lives[case5].report.command) << ex.trace;
    const Json& rerun = ex.lives[case5 + 1].report.facts["restores"];
    ASSERT_EQ(rerun.size(), 1u) << ex.trace;
    // The dead life deleted the oldest (crash) or nothing durable (power loss, no dirsync yet);
    // the rerun deletes the rest: the newest ancestors, a suffix of the fault-free prune.
    const std::set<std::string> all = Removed(ref.lives[case5].report.facts["restores"][0]);
    const std::set<std::string> rest = Removed(rerun[0]);
    EXPECT_EQ(rest.size(), kind == faults::FaultActionKind::kCrash ? all.size() - 1 : all.size());
    EXPECT_TRUE(std::equal(rest.rbegin(), rest.rend(), all.rbegin())) << ex.trace;
  }
}

TEST(RestorePruningScenarioTest, PruneOnReadMutantErodesAncestryOfAFailedRestore) {
  auto scenario = scenarios::MakeRestorePruningScenario();
  RunConfig config = StrictConfig();
  config.store.prune_on_read = true;
  Execution ex = RunPlan(*scenario, faults::Plan{}, config);
  EXPECT_TRUE(InvariantsOf(ex).count("INV-ANCESTRY")) << ex.trace;
}

TEST(RestorePruningScenarioTest, NonAtomicRestoreMutantLeavesAHalfRestoredLiveRun) {
  auto scenario = scenarios::MakeRestorePruningScenario();
  RunConfig config = StrictConfig();
  config.profile.non_atomic_restore = true;
  Execution ex = RunPlan(*scenario, faults::Plan{}, config);
  EXPECT_TRUE(InvariantsOf(ex).count("INV-ATOMIC")) << ex.trace;
  bool case3 = false;
  for (const auto& v : ex.violations)
    case3 = case3 || v.message.find("case 3") != std::string::npos;
  EXPECT_TRUE(case3) << ex.trace;
}

TEST(RestorePruningScenarioTest, StaleResponsesKeptMutantAnswersARequestFromASupersededTimeline) {
  auto scenario = scenarios::MakeRestorePruningScenario();
  RunConfig config = StrictConfig();
  config.profile.stale_responses_kept = true;
  Execution ex = RunPlan(*scenario, faults::Plan{}, config);
  EXPECT_TRUE(InvariantsOf(ex).count("INV-REQID")) << ex.trace;
}

}  // namespace
}  // namespace stepfault::properties
