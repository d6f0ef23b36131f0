// Goal: realistic, hand-written host bugs that are not among the project's hazard switches are
// caught by exploration, each by the invariant that states what the bug breaks (issue 12, points 3
// and 6), and the same exploration without the bug passes (so the catch is the bug's, not noise).
// Method: each test wraps a built-in scenario in a SeamScenario that introduces the bug through a
// seam (a HostSeams rule, a wrapped Env), explores it at depth 1 (default variant, file store, the
// action kinds that reach the bug) and asserts the expected invariant fires; the control runs the
// unwrapped scenario with the same options and asserts no violation at all.
#include <gtest/gtest.h>

#include "properties/seam_scenario_test_util.h"
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
  seams->same_decision = [](const std::string&, const std::string& stored_comment,
                            const std::string&, const std::string& comment) {
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
  seams->same_decision = [](const std::string& stored_choice, const std::string&,
                            const std::string& choice,
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

TEST(BugClassesTest, ApprovalWithoutTheBugsPassesTheSameExplorations) {
  for (const char* action : {"powerloss", "crash"}) {
    ScenarioExploration control = ExploreDepth1(*Builtin("approval"), {action});
    EXPECT_TRUE(control.violations.empty()) << action << ": " << Describe(control);
  }
}

}  // namespace
}  // namespace stepfault::properties
