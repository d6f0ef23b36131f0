// Goal: `stepfault approval` explored from outside as a black box agrees with the in-process
// `approval` scenario: both pass (every acknowledged approval completes with exactly one effect
// row after recovery, the same Approvals rows as the fault-free run, SQLite integrity holds), and
// the test reports the windows each way sees. Method: run `stepfault blackbox explore` on
// examples/blackbox/approval-cli/approval.json (crash only by default; crash, powerloss and
// ioerror with STEPFAULT_LONG=1) and `stepfault explore --scenario approval`, compare verdicts and
// print the window counts (docs/blackbox.md "The examples" quotes them).
#include <nlohmann/json.hpp>

#include "properties/blackbox/blackbox_test_util.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using Json = nlohmann::json;

size_t FsWindows(const Json& scenario) {
  size_t n = 0;
  for (const Json& w : scenario["windows"])
    n += w["point"].get<std::string>().find("fs.") != std::string::npos ? 1 : 0;
  return n;
}

TEST_F(BlackboxCliTest, ApprovalCliFromOutsideAgreesWithTheInProcessScenario) {
  std::string actions = testing::LongRun() ? "crash,powerloss,ioerror" : "crash";
  CommandResult outside =
      Stepfault("blackbox explore --spec " + testing::Example("approval-cli/approval.json") +
                " --actions " + actions + " --jobs 2 --out outside");
  ASSERT_EQ(outside.exit_code, 0) << outside.out << outside.err;
  // The file store: the one `stepfault approval` keeps its checkpoints in.
  CommandResult inside = Stepfault("explore --scenario approval --store file --depth 1 --actions " +
                                   actions + " --quiet --out inside");
  ASSERT_EQ(inside.exit_code, 0) << inside.out << inside.err;
  Json out = Json::parse(testing::ReadAll(dir_ + "/outside/report.json"))["scenarios"][0];
  Json in = Json::parse(testing::ReadAll(dir_ + "/inside/report.json"))["scenarios"][0];
  EXPECT_GT(out["windows"].size(), 50u);
  std::printf(
      "approval windows: black box %zu (all file-system calls of the real processes), in-process "
      "%zu "
      "(%zu of them simulated file-system windows, the rest engine and host probes)\n",
      out["windows"].size(), in["windows"].size(), FsWindows(in));
  RecordProperty("blackbox_windows", static_cast<int>(out["windows"].size()));
  RecordProperty("inprocess_windows", static_cast<int>(in["windows"].size()));
}

}  // namespace
}  // namespace stepfault::properties::blackbox
