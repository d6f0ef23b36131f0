// The approval scenario's own test seams: what a test replaces in the approval host and its
// business store to reproduce a bug class (properties/bug_classes_test.cc). A test installs them in
// HostSeams::scenario_seams (scenarios/scenario.h), which no other scenario reads; ApprovalSeamsOf
// finds them there. Thread-safety: values.
#pragma once

#include <any>
#include <functional>
#include <string>

#include "scenarios/scenario.h"

namespace stepfault::scenarios {

struct ApprovalSeams {
  // The approval store's replay rule: whether a decision already stored (choice, comment) and a
  // new one are the same decision (faithful: both fields equal).
  std::function<bool(const std::string& stored_choice, const std::string& stored_comment,
                     const std::string& choice, const std::string& comment)>
      same_decision;
  // The approval business store commits an approval's effect in two transactions instead of one:
  // the Completed status first, then the backlog row (ApprovalStoreOptions::split_effect_commit).
  bool split_effect_commit = false;
  // The other order of the same split: the backlog row first, then the Completed status
  // (ApprovalStoreOptions::split_effect_commit_row_first). Safe while the row's unique key makes a
  // replayed Apply idempotent (properties/bug_classes_test.cc says why).
  bool split_effect_commit_row_first = false;
  // SQL the approval business store runs right after it opened and configured its database (e.g.
  // "PRAGMA synchronous=OFF", a host that trades durability for speed).
  std::string after_open_sql;
};

// The approval seams a test installed in env.seams, or null (none, or another scenario's).
inline const ApprovalSeams* ApprovalSeamsOf(const HostEnv& env) {
  return env.seams ? std::any_cast<ApprovalSeams>(&env.seams->scenario_seams) : nullptr;
}

}  // namespace stepfault::scenarios
