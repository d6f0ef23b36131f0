// Goal: every kind of bad black-box input gives a clear message and exit 2 (a hang under a fault
// is an INV-LIVENESS violation with its plan, exit 1), and nothing outside the scratch area
// changes. Method: run `stepfault blackbox` in a fresh directory on small hand-written specs, then
// check the exit status, the message and that the directory holds only what the command may write.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

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

// A worker that dies (here the program kills it: $PPID of a command is the worker running it) is
// an INV-HARNESS violation of the cell it was on, naming the job and the death, in either phase
// (live ioerror run, recovery and checks); every other cell is still explored. It used to surface
// as bad input (exit 2) from the results the dead worker never wrote.
TEST_F(BlackboxBadInputTest, AWorkerThatDiesIsAnInvHarnessViolationOfItsCellNotBadInput) {
  std::string spec = WriteSpec("spec.json", R"({"name":"killer","dir":"data",
    "run":["{ echo a > $STEPFAULT_DIR/a || kill -SEGV $PPID; } && echo done > $STEPFAULT_DIR/done"],
    "recover":["test -s $STEPFAULT_DIR/done || kill -SEGV $PPID"]})");
  CommandResult r =
      Stepfault("blackbox explore --spec " + spec + " --actions crash,ioerror --jobs 2 --out out");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json report = nlohmann::json::parse(ReadAll(dir_ + "/out/report.json"));
  std::set<std::string> plans;
  for (const auto& v : report["violations"]) {
    const std::string plan = v["plan"];
    const std::string message = v["message"];
    EXPECT_EQ(v["invariant"], "INV-HARNESS") << plan;
    EXPECT_NE(message.find(plan + " died of signal 11 (Segmentation fault)"), std::string::npos)
        << message;
    plans.insert(plan);
  }
  // Killed in its live run (the write failed, so the program killed its runner), and in recovery.
  bool live = false;
  for (const auto& v : report["violations"])
    live = live || v["message"].get<std::string>().find(
                       "the worker running the live run of ioerror@fs.write[a]#1 died") !=
                       std::string::npos;
  EXPECT_TRUE(live) << report["violations"].dump(2);
  EXPECT_EQ(plans, (std::set<std::string>{
                       "crash@fs.create[a]#1", "crash@fs.write[a]#1", "crash@fs.create[done]#1",
                       "crash@fs.write[done]#1", "ioerror@fs.create[a]#1", "ioerror@fs.write[a]#1",
                       "ioerror@fs.create[done]#1", "ioerror@fs.write[done]#1"}));
  // After the last command the recovery finds its file: that cell passes, in a new worker.
  bool passed = false;
  for (const auto& c : report["scenarios"][0]["cells"])
    passed = passed || (c["window"] == "proc.exit[cmd1]#1" && c["outcome"] == "pass");
  EXPECT_TRUE(passed) << report["scenarios"][0]["cells"].dump(2);
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

// Issue 30 defect 3: `blackbox explore --out DIR` deleted an existing DIR/scratch, even on a
// rejected run. A scratch directory the tool did not make is refused (exit 2, untouched); one it
// made is its own to replace.
TEST_F(BlackboxBadInputTest, AScratchDirectoryTheToolDidNotMakeIsNeverDeleted) {
  const std::string spec = testing::Example("json-state/atomic.json");
  std::filesystem::create_directories(dir_ + "/out/scratch");
  std::ofstream(dir_ + "/out/scratch/mine.txt") << "the user's";
  for (const std::string extra : {"", " --shard 3/2"}) {
    CommandResult r = Stepfault("blackbox explore --spec " + spec + extra + " --out out");
    EXPECT_EQ(r.exit_code, 2) << extra << r.out << r.err;
    EXPECT_EQ(ReadAll(dir_ + "/out/scratch/mine.txt"), "the user's") << extra;
  }
  CommandResult r = Stepfault("blackbox explore --spec " + spec + " --out out");
  EXPECT_NE(r.err.find("out/scratch exists and was not made by stepfault"), std::string::npos)
      << r.err;
  std::filesystem::remove_all(dir_ + "/out/scratch");
  ASSERT_EQ(Stepfault("blackbox explore --spec " + spec + " --actions crash --out out").exit_code,
            0);
  // Its own scratch it replaces on the next run.
  EXPECT_EQ(Stepfault("blackbox explore --spec " + spec + " --actions crash --out out").exit_code,
            0);
}

// Issue 30 defect 6: `blackbox replay --keep` with an ioerror plan said it kept the crash state
// and created nothing. It keeps the directory the failed run left and the recovered one.
TEST_F(BlackboxBadInputTest, ReplayKeepsWhatItSaysForAnIOErrorPlan) {
  std::string spec = WriteSpec("spec.json", R"({"name":"t","dir":"data",
    "run":["echo a > $STEPFAULT_DIR/a && echo b > $STEPFAULT_DIR/b"]})");
  CommandResult r =
      Stepfault("blackbox replay --spec " + spec + " --plan 'ioerror@fs.create[b]#1' --keep kept");
  ASSERT_NE(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("kept the directory the ioerror run left in kept/crash-state"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(ReadAll(dir_ + "/kept/crash-state/data/a"), "a\n");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/kept/recovered/data/a")) << r.out;
}

// Issue 30 defect 5: after SIGTERM (or SIGINT) to `blackbox explore`, its workers and the user's
// program were reparented to init and kept running. Every one of them dies with the parent.
TEST_F(BlackboxBadInputTest, WorkersAndTheProgramDieWithTheirParent) {
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string pids = dir_ + "/pids-" + std::to_string(sig);
    std::string spec = WriteSpec("spec.json", R"({"name":"slow","dir":"data",
      "run":["echo a > $STEPFAULT_DIR/a && echo b > $STEPFAULT_DIR/b"],
      "recover":["test -s $STEPFAULT_DIR/b || { sleep 120 & echo $! >> )" +
                                                  pids + R"(; wait; }"],"timeout_s":300})");
    const pid_t parent = fork();
    ASSERT_GE(parent, 0);
    if (parent == 0) {
      if (chdir(dir_.c_str()) != 0) _exit(126);
      const std::string bin = testing::BinDir() + "/stepfault";
      execl(bin.c_str(), bin.c_str(), "blackbox", "explore", "--spec", spec.c_str(), "--actions",
            "crash", "--jobs", "2", "--out", "out", static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait until both workers' programs sleep (or one, if only one state needs recovery).
    std::string listed;
    for (int i = 0; i < 600 && std::count(listed.begin(), listed.end(), '\n') < 2; ++i) {
      usleep(100 * 1000);
      listed = ReadAll(pids);
    }
    ASSERT_FALSE(listed.empty()) << "no recovery ever slept";
    ASSERT_EQ(kill(parent, sig), 0);
    int status = 0;
    ASSERT_EQ(waitpid(parent, &status, 0), parent);
    // Every sleeping program, and every process still naming the spec, is gone (or a zombie).
    auto alive = [&] {
      std::vector<std::string> left;
      std::istringstream lines(ReadAll(pids));
      for (std::string pid; std::getline(lines, pid);) {
        std::string stat = ReadAll("/proc/" + pid + "/stat");
        if (!stat.empty() && stat.find(") Z") == std::string::npos) left.push_back(pid);
      }
      for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        std::string cmdline = ReadAll(e.path().string() + "/cmdline");
        std::string stat = ReadAll(e.path().string() + "/stat");
        if (cmdline.find(spec) != std::string::npos && stat.find(") Z") == std::string::npos)
          left.push_back(e.path().filename().string());
      }
      return left;
    };
    std::vector<std::string> left;
    for (int i = 0; i < 50; ++i) {
      left = alive();
      if (left.empty()) break;
      usleep(100 * 1000);
    }
    EXPECT_TRUE(left.empty()) << "signal " << sig << ": still running: " << left.size()
                              << " process(es), the first " << (left.empty() ? "" : left[0]);
    for (const std::string& pid : left) kill(std::stoi(pid), SIGKILL);
  }
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
