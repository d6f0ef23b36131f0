// Goal: every kind of bad black-box input gives a clear message and exit 2 (a hang under a fault
// is an INV-LIVENESS violation with its plan, exit 1), and nothing outside the scratch area
// changes. Method: run `stepfault blackbox` in a fresh directory on small hand-written specs, then
// check the exit status, the message and that the directory holds only what the command may write.
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "properties/blackbox/blackbox_test_util.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using testing::ReadAll;

class BlackboxBadInputTest : public BlackboxCliTest {
 protected:
  // Runs explore on `json`, expects exit 2 with `text` in stderr and no stray file in the test dir.
  void ExpectRejected(const std::string& json, const std::string& text) {
    std::string spec = WriteSpec("spec.json", json);
    CommandResult r = Stepfault("blackbox explore --spec " + spec + " --out out");
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      std::string name = e.path().filename().string();
      EXPECT_TRUE(name == "spec.json" || name == "out") << "stray " << name;
    }
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/out/report.json"));
  }
};

// Issue 16 item 9 for `blackbox explore|replay`: numbers are parsed strictly (sscanf took "1/2x",
// CLI11 took a negative --depth2-max-pairs), exit 2 before any work.
TEST_F(BlackboxBadInputTest, NumbersAreParsedStrictly) {
  const std::string spec = testing::Example("json-state/atomic.json");
  for (const std::string bad :
       {"--shard 1/2x", "--shard 3/2", "--shard 1/999999999999", "--seed -1",
        "--seed 18446744073709551616", "--depth2-max-pairs -5", "--depth2-max-pairs 0"}) {
    CommandResult r = Stepfault("blackbox explore --spec " + spec + " " + bad + " --out out");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/out/report.json")) << bad;
  }
  EXPECT_EQ(Stepfault("blackbox replay --spec " + spec + " --plan 'crash@x#1' --seed 1x").exit_code,
            2);
}

TEST_F(BlackboxBadInputTest, ASpecNamingNoCommandsIsRejected) {
  ExpectRejected(R"({"name":"x","dir":"data","run":[]})", "/run: names no command");
}

TEST_F(BlackboxBadInputTest, ACommandThatDoesNotExistIsRejected) {
  ExpectRejected(R"({"name":"x","dir":"data","run":["no-such-program-stepfault --go"]})",
                 "exited 127 (command not found?)");
}

TEST_F(BlackboxBadInputTest, ADirectoryOutsideTheWorkingDirectoryIsRejected) {
  ExpectRejected(R"({"name":"x","dir":"/etc","run":["true"]})",
                 "/dir: \"/etc\" is outside the working directory");
  ExpectRejected(R"({"name":"x","dir":"data/../../x","run":["true"]})",
                 "outside the working directory");
}

TEST_F(BlackboxBadInputTest, AProgramThatNeverTouchesTheDirectoryHasZeroWindows) {
  ExpectRejected(R"({"name":"x","dir":"data","run":["echo hello > elsewhere.txt"]})",
                 "zero windows");
}

TEST_F(BlackboxBadInputTest, AProgramThatHangsFaultFreeIsRejected) {
  ExpectRejected(R"({"name":"x","dir":"data","run":["sleep 60"],"timeout_s":1})",
                 "did not finish in 1 s (killed with its process group)");
}

TEST_F(BlackboxBadInputTest, ARecoveryThatHangsAfterAFaultIsALivenessViolationWithItsPlan) {
  std::string spec = WriteSpec("spec.json", R"({"name":"hang","dir":"data",
    "run":["echo a > $STEPFAULT_DIR/a && echo done > $STEPFAULT_DIR/done"],
    "recover":["test -s $STEPFAULT_DIR/done || sleep 60"],"timeout_s":1})");
  CommandResult r = Stepfault("blackbox explore --spec " + spec + " --actions crash --out out");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json report = nlohmann::json::parse(ReadAll(dir_ + "/out/report.json"));
  bool found = false;
  for (const auto& v : report["violations"]) {
    if (v["invariant"] == "INV-LIVENESS" && v["plan"] == "crash@fs.create[done]#1") found = true;
  }
  EXPECT_TRUE(found) << report["violations"].dump(2);
}

TEST_F(BlackboxBadInputTest, ChildrenLeftBehindAreKilledWithTheProcessGroup) {
  std::string spec = WriteSpec("spec.json", R"({"name":"fork","dir":"data",
    "run":["sleep 120 & echo $! > child.pid; echo x > $STEPFAULT_DIR/x"]})");
  CommandResult r = Stepfault("blackbox record --spec " + spec + " --out out", 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("left processes behind; they were killed"), std::string::npos) << r.out;
  std::string pid = ReadAll(dir_ + "/out/scratch/record/work/child.pid");
  ASSERT_FALSE(pid.empty());
  // SIGKILL is delivered asynchronously: give the child a moment to be gone (or a zombie).
  std::string stat;
  for (int i = 0; i < 50; ++i) {
    stat = ReadAll("/proc/" + std::to_string(std::stoi(pid)) + "/stat");
    if (stat.empty() || stat.find(") Z") != std::string::npos) break;
    usleep(100 * 1000);
  }
  EXPECT_TRUE(stat.empty() || stat.find(") Z") != std::string::npos)
      << "the child still runs: " << stat;
}

TEST_F(BlackboxBadInputTest, ADamagedTraceIsATypedError) {
  std::string spec =
      WriteSpec("spec.json", R"({"name":"t","dir":"data","run":["echo x > $STEPFAULT_DIR/x"]})");
  ASSERT_EQ(Stepfault("blackbox record --spec " + spec + " --out out").exit_code, 0);
  std::string trace = ReadAll(dir_ + "/out/trace.sftrace");
  ASSERT_GT(trace.size(), 40u);
  EXPECT_EQ(Stepfault("blackbox record --check-trace out/trace.sftrace").exit_code, 0);
  trace[trace.size() - 5] ^= 0x20;
  std::ofstream(dir_ + "/damaged.sftrace", std::ios::binary) << trace;
  CommandResult r = Stepfault("blackbox record --check-trace damaged.sftrace");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("checksum mismatch"), std::string::npos) << r.err;
  std::ofstream(dir_ + "/cut.sftrace", std::ios::binary) << trace.substr(0, trace.size() - 9);
  CommandResult cut = Stepfault("blackbox record --check-trace cut.sftrace");
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_NE(cut.err.find("truncated"), std::string::npos) << cut.err;
}

TEST_F(BlackboxBadInputTest, APlanThatIsNotAWindowOfTheRunIsRejected) {
  std::string spec =
      WriteSpec("spec.json", R"({"name":"t","dir":"data","run":["echo x > $STEPFAULT_DIR/x"]})");
  CommandResult bad =
      Stepfault("blackbox replay --spec " + spec + " --plan 'explode@fs.write[x]#1'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown action 'explode'"), std::string::npos) << bad.err;
  CommandResult missing =
      Stepfault("blackbox replay --spec " + spec + " --plan 'crash@fs.write[y]#1'");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("is not in the recorded run; its windows are: fs.create[x]#1"),
            std::string::npos)
      << missing.err;
}

}  // namespace
}  // namespace stepfault::properties::blackbox
