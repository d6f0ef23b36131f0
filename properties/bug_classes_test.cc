// Goal: realistic, hand-written host bugs that are not among the project's hazard switches are
// caught by exploration, each by the invariant that states what the bug breaks (issue 12, points 3
// and 6), and the same exploration without the bug passes (so the catch is the bug's, not noise).
// Method: each test wraps a built-in scenario in a SeamScenario that introduces the bug through a
// seam (a HostSeams rule or store option, a wrapped Env, a replaced resume), explores it at depth 1
// (default variant, file store, the action kinds that reach the bug) and asserts the expected
// invariant fires with the message of the oracle that should see it; the control runs the
// unwrapped scenario with the same options and asserts no violation at all.
#include <gtest/gtest.h>

#include <set>

#include "properties/life_runner.h"
#include "properties/seam_scenario_test_util.h"
#include "scenarios/approval/approval_seams.h"
#include "scenarios/effect_store.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

using testing::CountViolations;
using testing::Describe;
using testing::ExploreDepth1;
using testing::SeamScenario;

std::shared_ptr<const scenarios::Scenario> Builtin(const std::string& name) {
  auto s = scenarios::FindScenario(name);
  SF_CHECK(s != nullptr);
  return s;
}

// Misuse that varies one field at a time: a replay rule that compares only the comment accepts a
// second decision with the same comment and the other choice. Only conflicting-response:choice
// differs in the choice alone, so exploration catches it with INV-DECISION.
TEST(BugClassesTest, ReplayRuleComparingOnlyTheCommentIsCaughtByTheChoiceOnlyConflict) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->scenario_seams.emplace<scenarios::ApprovalSeams>().same_decision =
      [](const std::string&, const std::string& stored_comment, const std::string&,
         const std::string& comment) {
        return stored_comment == comment;  // the bug: the choice is never compared
      };
  SeamScenario buggy(Builtin("approval"), [seams](scenarios::HostEnv& env) { env.seams = seams; });
  ScenarioExploration e = ExploreDepth1(buggy, {"conflicting-response"});
  EXPECT_GE(CountViolations(e, scenarios::kInvDecision), 1) << Describe(e);
  bool by_choice_only = false;
  for (const reports::Violation& v : e.violations) {
    by_choice_only = by_choice_only || v.action == "conflicting-response:choice";
    // The old all-fields conflict changes the comment too, so it can never catch this bug.
    EXPECT_NE(v.action, "conflicting-response") << Describe(e);
  }
  EXPECT_TRUE(by_choice_only) << Describe(e);

  ScenarioExploration control = ExploreDepth1(*Builtin("approval"), {"conflicting-response"});
  EXPECT_TRUE(control.violations.empty()) << Describe(control);
}

// The same for a rule that compares only the choice: caught by conflicting-response:comment.
TEST(BugClassesTest, ReplayRuleComparingOnlyTheChoiceIsCaughtByTheCommentOnlyConflict) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->scenario_seams.emplace<scenarios::ApprovalSeams>().same_decision =
      [](const std::string& stored_choice, const std::string&, const std::string& choice,
         const std::string&) { return stored_choice == choice; };
  SeamScenario buggy(Builtin("approval"), [seams](scenarios::HostEnv& env) { env.seams = seams; });
  ScenarioExploration e = ExploreDepth1(buggy, {"conflicting-response"});
  bool by_comment_only = false;
  for (const reports::Violation& v : e.violations) {
    by_comment_only = by_comment_only || (v.action == "conflicting-response:comment" &&
                                          v.invariant == scenarios::kInvDecision);
  }
  EXPECT_TRUE(by_comment_only) << Describe(e);
}

// A store wrapper that drops part of what it is given (the outstanding requests of every
// checkpoint): a resume loses the request the host already reported to the outside. The engine's
// own pending list after the restore and its re-emitted events agree with each other (both are
// empty), so only an oracle that compares with what was recorded durably before the crash (the
// host's request ledger) sees it: INV-REQID.
TEST(BugClassesTest, StoreDroppingOutstandingRequestsIsCaughtByTheRequestLedger) {
  auto seams = testing::EditingStoreSeams([](Checkpoint& c) { c.outstanding.clear(); });
  SeamScenario buggy(testing::JsonExample("review-pipeline.json"),
                     [seams](scenarios::HostEnv& env) { env.seams = seams; });
  ScenarioExploration e = ExploreDepth1(buggy, {"crash"});
  EXPECT_GE(CountViolations(e, scenarios::kInvReqid), 1) << Describe(e);
  bool by_ledger = false;
  for (const reports::Violation& v : e.violations) {
    by_ledger = by_ledger || (v.invariant == scenarios::kInvReqid &&
                              v.message.find("reported at step") != std::string::npos);
  }
  EXPECT_TRUE(by_ledger) << Describe(e);

  ScenarioExploration control =
      ExploreDepth1(*testing::JsonExample("review-pipeline.json"), {"crash"});
  EXPECT_TRUE(control.violations.empty()) << Describe(control);
}

// An Env that skips the directory fsync after the waiting receipt is renamed into place (or the
// fsync of its bytes): a power loss after `start` reported the receipt loses it, and the durability
// oracle for what a life observed as published fires (INV-RECEIPT).
void ExpectSkippedSyncCaught(bool skip_file_sync, bool skip_dir_sync) {
  SeamScenario buggy(Builtin("approval"), nullptr);
  buggy.WrapEnv([=](Env* target, const std::string&) {
    return std::unique_ptr<Env>(std::make_unique<testing::SkipOneSyncEnv>(
        target, "waiting.json", skip_file_sync, skip_dir_sync));
  });
  ScenarioExploration e = ExploreDepth1(buggy, {"powerloss"});
  EXPECT_GE(CountViolations(e, scenarios::kInvReceipt), 1) << Describe(e);
}

TEST(BugClassesTest, EnvSkippingTheReceiptsDirectoryFsyncIsCaught) {
  ExpectSkippedSyncCaught(/*skip_file_sync=*/false, /*skip_dir_sync=*/true);
}

TEST(BugClassesTest, EnvSkippingTheReceiptsFsyncIsCaught) {
  ExpectSkippedSyncCaught(/*skip_file_sync=*/true, /*skip_dir_sync=*/false);
}

// INV-TOPOLOGY observed, not trusted: a host resume that imports the checkpoint into a scratch run
// of the workflow it meant to build before it compares the rebuilt (mutated) topology still
// refuses it, and the mutated workflow stays usable, so its return value and the ownership fact
// look faithful. Only the restore.state.apply witness sees that state was imported before the
// refusal.
TEST(BugClassesTest, ResumeThatImportsStateBeforeTheTopologyCheckIsCaught) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->resume = [](const WorkflowSpec& meant, std::shared_ptr<Workflow> built,
                     const CheckpointInfo& checkpoint,
                     RunOptions options) -> Result<std::unique_ptr<StreamingRun>> {
    SF_ASSIGN_OR_RETURN(std::shared_ptr<Workflow> scratch, meant.Build());
    if (scratch->signature() == built->signature()) {
      return StreamingRun::Resume(std::move(built), checkpoint, std::move(options));
    }
    // The bug: the checkpoint is imported first, the rebuilt topology compared afterwards.
    SF_ASSIGN_OR_RETURN(std::unique_ptr<StreamingRun> imported,
                        StreamingRun::Resume(scratch, checkpoint, options));
    return Status::Incompatible("the rebuilt workflow does not match checkpoint " +
                                checkpoint.checkpoint_id);
  };
  SeamScenario buggy(Builtin("approval"), [seams](scenarios::HostEnv& env) { env.seams = seams; });
  ScenarioExploration e = ExploreDepth1(buggy, {"topology"});
  EXPECT_GE(CountViolations(e, scenarios::kInvTopology), 1) << Describe(e);
  for (const reports::Violation& v : e.violations) {
    EXPECT_NE(v.message.find("only after state was imported"), std::string::npos) << Describe(e);
  }

  ScenarioExploration control = ExploreDepth1(*Builtin("approval"), {"topology"});
  EXPECT_TRUE(control.violations.empty()) << Describe(control);
}

// A host option that splits one transaction in two: the approval effect commits the Completed
// status first and the backlog row in a second transaction. Recovery repairs the final state (the
// replayed Apply inserts the row), so only the check of the durable database after the life that
// died between the two commits sees `status`'s Completed without its effect row: INV-ALO.
TEST(BugClassesTest, EffectCommitSplitInTwoTransactionsIsCaughtBetweenLives) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->scenario_seams.emplace<scenarios::ApprovalSeams>().split_effect_commit = true;
  SeamScenario buggy(Builtin("approval"), [seams](scenarios::HostEnv& env) { env.seams = seams; });
  ScenarioExploration e = ExploreDepth1(buggy, {"crash"});
  bool between_commits = false;
  for (const reports::Violation& v : e.violations) {
    between_commits =
        between_commits || (v.invariant == scenarios::kInvAlo &&
                            v.message.find("effect row does not exist") != std::string::npos);
  }
  EXPECT_TRUE(between_commits) << Describe(e);
}

// Completed reported before the effect row is durable: a host that trades durability for speed
// opens its business database with synchronous=OFF and trusts the page cache (it never fsyncs the
// database, not even the recovery rule's fsync before `status` reads it), so the resume reports
// its item Completed while a power loss right then takes the row. The per-life observation check
// (the oracle on the world a power loss right after each life leaves) catches it with INV-ALO,
// without any power loss injected. synchronous=OFF alone is masked: the recovery rule's fsync
// before `status` reads the database makes the row durable (tried: no violation).
TEST(BugClassesTest, CompletedReportedBeforeItsEffectRowIsDurableIsCaught) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->scenario_seams.emplace<scenarios::ApprovalSeams>().after_open_sql =
      "PRAGMA synchronous=OFF";
  SeamScenario buggy(Builtin("approval"), [seams](scenarios::HostEnv& env) { env.seams = seams; });
  buggy.WrapEnv([](Env* target, const std::string&) {
    return std::unique_ptr<Env>(std::make_unique<testing::NeverSyncEnv>(target, "business.db"));
  });
  ScenarioExploration e = ExploreDepth1(buggy, {"crash"});
  bool reported_lost = false;
  for (const reports::Violation& v : e.violations) {
    reported_lost = reported_lost || (v.invariant == scenarios::kInvAlo &&
                                      v.message.find("a life reported item") != std::string::npos);
  }
  EXPECT_TRUE(reported_lost) << Describe(e);
}

// The same split in the other order: the backlog row commits alone, the Completed status in a
// second transaction. A death between the two leaves the row with its operation still Approved:
// `status` says Approved, which is true (nothing reports Completed before it is), and the next
// life's replayed Apply inserts the row again with ON CONFLICT(OperationId) DO NOTHING, so the
// unique key absorbs the repetition and the status commit completes it. This order is therefore
// safe, and the test proves it (no violation over crash and power loss). The safety rests on the
// unique key alone: the same split with the key dropped (the effect-without-unique-key mutant) is
// caught by INV-IDEM in a window only the split has, the second transaction's effect.commit.before
// (the row is durable, the status is not), where the unsplit mutant commits nothing and holds.
TEST(BugClassesTest, EffectCommitSplitRowFirstIsSafeOnlyThanksToTheUniqueKey) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->scenario_seams.emplace<scenarios::ApprovalSeams>().split_effect_commit_row_first = true;
  SeamScenario split(Builtin("approval"), [seams](scenarios::HostEnv& env) { env.seams = seams; });
  for (const char* action : {"crash", "powerloss"}) {
    ScenarioExploration e = ExploreDepth1(split, {action});
    EXPECT_TRUE(e.violations.empty()) << action << ": " << Describe(e);
  }

  auto without_key = [](scenarios::HostEnv& env) {
    env.hazards.insert(scenarios::kHazardEffectWithoutUniqueKey);
  };
  SeamScenario split_without_key(
      Builtin("approval"),
      [seams, without_key](scenarios::HostEnv& env) {
        env.seams = seams;
        without_key(env);
      },
      without_key);
  SeamScenario unsplit_without_key(Builtin("approval"), without_key, without_key);
  ScenarioExploration bug = ExploreDepth1(split_without_key, {"crash"});
  ScenarioExploration mutant = ExploreDepth1(unsplit_without_key, {"crash"});
  auto idem_plans = [](const ScenarioExploration& e) {
    std::set<std::string> plans;
    for (const reports::Violation& v : e.violations) {
      if (v.invariant == scenarios::kInvIdem) plans.insert(v.plan);
    }
    return plans;
  };
  const std::set<std::string> split_plans = idem_plans(bug);
  const std::set<std::string> mutant_plans = idem_plans(mutant);
  bool between_commits = false;
  for (const std::string& plan : split_plans) {
    between_commits = between_commits || (plan.find("effect.commit.before") != std::string::npos &&
                                          mutant_plans.count(plan) == 0);
  }
  EXPECT_TRUE(between_commits) << "split:\n" << Describe(bug) << "unsplit:\n" << Describe(mutant);
}

// A checkpoint store that prunes as if every commit were a restore (it calls the pruning rule on
// the checkpoint it just committed): the artifact-boundary recovery run's durable store loses the
// ancestors a life observed committed, with no resume to make them obsolete. INV-ANCESTRY's
// deletion rules see it in the recovery store (<dir>/recovery), over the file and SQLite stores.
// The stores never prune the base a kept delta needs, so the wrapper stores every checkpoint full
// (an EditingStore that changes nothing resolves each delta) for its pruning to delete anything.
// The control: the unmodified scenario holds, and its lives report only durable checkpoints as
// committed (the live run's in-memory ones are "in_memory_checkpoints").
class PruneOnCommitStore final : public ForwardingCheckpointStore {
 public:
  using ForwardingCheckpointStore::ForwardingCheckpointStore;
  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override {
    SF_ASSIGN_OR_RETURN(CheckpointInfo info, inner().Commit(session_id, bytes, parent));
    SF_RETURN_IF_ERROR(OnRestorationCompleted(info));  // the bug: pruning without a restore
    return info;
  }
};

TEST(BugClassesTest, RecoveryStorePruningWithoutARestoreIsCaughtInArtifactBoundary) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->wrap_checkpoint_store = [](std::unique_ptr<CheckpointStore> inner) {
    auto full = std::make_unique<testing::EditingStore>(std::move(inner), [](Checkpoint&) {});
    return std::unique_ptr<CheckpointStore>(std::make_unique<PruneOnCommitStore>(std::move(full)));
  };
  SeamScenario buggy(Builtin("artifact-boundary"),
                     [seams](scenarios::HostEnv& env) { env.seams = seams; });
  for (const char* store : {"file", "sqlite"}) {
    ScenarioExploration e = ExploreDepth1(buggy, {"crash"}, store);
    bool deleted = false;
    for (const reports::Violation& v : e.violations) {
      // Caught by the deletion rule: the durability look (a checkpoint no check saw yet, "no
      // resume since could prune it") or, once a check has seen the index, the pruning rule
      // applied to every checkpoint committed since ("no successful resume made it obsolete").
      deleted = deleted ||
                (v.invariant == scenarios::kInvAncestry &&
                 (v.message.find("no resume since could prune it") != std::string::npos ||
                  v.message.find("no successful resume made it obsolete") != std::string::npos));
    }
    EXPECT_TRUE(deleted) << store << ": " << Describe(e);

    ScenarioExploration control = ExploreDepth1(*Builtin("artifact-boundary"), {"crash"}, store);
    EXPECT_TRUE(control.violations.empty()) << store << ": " << Describe(control);
  }
  Execution reference = RunPlan(*Builtin("artifact-boundary"), faults::Plan{}, RunConfig{});
  ASSERT_FALSE(reference.lives.empty());
  const Json& facts = reference.lives[0].report.facts;
  EXPECT_TRUE(facts.value("checkpoints_written", Json::array()).empty()) << facts.dump();
  EXPECT_FALSE(facts.value("in_memory_checkpoints", Json::array()).empty()) << facts.dump();
}

TEST(BugClassesTest, ApprovalWithoutTheBugsPassesTheSameExplorations) {
  for (const char* action : {"powerloss", "crash"}) {
    ScenarioExploration control = ExploreDepth1(*Builtin("approval"), {action});
    EXPECT_TRUE(control.violations.empty()) << action << ": " << Describe(control);
  }
}

}  // namespace
}  // namespace stepfault::properties
