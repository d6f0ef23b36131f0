// Goal: what black-box mode hears from a program is what the program meant, and a plan it prints
// replays. Four channels, each a false result before it was fixed:
// - temporary names: a program that saves through tmp_obj_<random> and state.<pid>.tmp gives the
//   same windows in every recording (NONDETERMINISTIC before), and a printed plan at such a
//   window replays (crash and ioerror);
// - acknowledgements: a program acknowledging through $STEPFAULT_ACK_FILE with stdio is heard at
//   the point of its fflush, so a power loss that loses an acknowledged commit is found, and its
//   violation says what was acknowledged; output captured by `$(...)` inside a run command is not
//   an acknowledgement; a check that never reads $STEPFAULT_ACKED is warned about;
// - ioerror cost: the live ioerror run of a window in a later command starts from the last
//   command boundary (earlier commands are not run again), and falls back to the whole run when
//   the program's later commands depend on more than the directory;
// - the message of a SQL check whose database is missing names the path it tried.
// Method: `stepfault blackbox record|explore|replay` on small specs around
// stepfault-workload-programs (faults/blackbox/testdata/workload_programs.c) and shell commands.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "faults/blackbox/trace.h"
#include "properties/blackbox/blackbox_test_util.h"
#include "properties/blackbox/explore.h"
#include "properties/blackbox/session.h"
#include "scenarios/blackbox/checks.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using testing::ReadAll;
using Json = nlohmann::json;

class HarnessChannelsTest : public BlackboxCliTest {
 protected:
  std::string TempSaveSpec(bool with_temp_names) {
    return WriteSpec("temp.json", std::string(R"({"name":"temp-save","dir":"d",
      "setup":["mkdir -p d"],
      "run":["stepfault-workload-programs temp-save $STEPFAULT_DIR 1"],
      "check":["if grep -qx 'saved 1' \"$STEPFAULT_ACKED\"; then grep -qx 'state 1' d/state; fi"])") +
                                      (with_temp_names ? R"(,"temp_names":["tmp_obj_*"]})" : "}"));
  }
};

TEST_F(HarnessChannelsTest, TemporaryNamesAreCanonicalSoRecordingsAgreeAndPlansReplay) {
  std::string spec = TempSaveSpec(true);
  CommandResult r =
      Stepfault("blackbox explore --spec " + spec + " --actions crash,ioerror --out ex");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("NONDETERMINISTIC"), std::string::npos) << r.out;
  Json report = Json::parse(ReadAll(dir_ + "/ex/report.json"));
  std::set<std::string> ids;
  for (const Json& w : report["scenarios"][0]["windows"]) ids.insert(w["id"].get<std::string>());
  EXPECT_TRUE(ids.count("fs.create[tmp_obj_@1]#1")) << report["scenarios"][0]["windows"].dump();
  bool pid_named = false;
  for (const std::string& id : ids) pid_named |= id.rfind("fs.create[state.@p", 0) == 0;
  EXPECT_TRUE(pid_named) << report["scenarios"][0]["windows"].dump();
  // A crash and an ioerror at the temporary file replay from a fresh recording with new names.
  for (const char* plan : {"crash@fs.rename[tmp_obj_@1]#1", "ioerror@fs.write[tmp_obj_@1]#1"}) {
    CommandResult p = Stepfault("blackbox replay --spec " + spec + " --plan '" + plan + "'");
    EXPECT_EQ(p.exit_code, 0) << plan << "\n" << p.out << p.err;
  }
}

TEST_F(HarnessChannelsTest, WithoutTempNamesTheUnstableWindowsAreNamedWithTheFix) {
  CommandResult r =
      Stepfault("blackbox explore --spec " + TempSaveSpec(false) + " --actions crash --out ex");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("NONDETERMINISTIC"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fs.create[tmp_obj_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"temp_names\""), std::string::npos) << r.out;
  // The pid-named file needs no glob: its name is canonical already.
  EXPECT_EQ(r.out.find("fs.create[state."), std::string::npos) << r.out;
}

TEST_F(HarnessChannelsTest, AcknowledgementsThroughTheAckFileFindALostAcknowledgedCommit) {
  WriteCommitCheck("cat \"$STEPFAULT_DIR/log\" 2>/dev/null");
  std::string spec = WriteSpec("ack.json", R"({"name":"ack-stdio","dir":"d",
    "setup":["mkdir -p d"],
    "run":["stepfault-workload-programs ack-stdio $STEPFAULT_DIR; echo committed 9"],
    "check":["sh $STEPFAULT_SPEC_DIR/check.sh"]})");
  CommandResult r =
      Stepfault("blackbox explore --spec " + spec + " --actions crash,powerloss --out ex");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("acknowledgements: the lines written to $STEPFAULT_ACK_FILE"),
            std::string::npos)
      << r.out;
  Json report = Json::parse(ReadAll(dir_ + "/ex/report.json"));
  ASSERT_FALSE(report["violations"].empty());
  for (const Json& v : report["violations"]) {
    const std::string m = v["message"].get<std::string>();
    // Only commit 2 was acknowledged before it was durable; stdout's "committed 9" is not heard.
    EXPECT_NE(m.find("commit 2 was acknowledged but is lost"), std::string::npos) << m;
    EXPECT_NE(m.find("acknowledged before the fault: 2 lines, the last `committed 2`"),
              std::string::npos)
        << m;
    EXPECT_EQ(v["failure"],
              "check `sh $STEPFAULT_SPEC_DIR/check.sh` failed (exit #): commit # "
              "was acknowledged but is lost");
  }
}

TEST_F(HarnessChannelsTest, OutputCapturedInsideARunCommandIsNoAcknowledgement) {
  std::string spec = WriteSpec("cap.json", R"({"name":"cap","dir":"d","setup":["mkdir -p d"],
    "run":["x=$(echo captured); echo real; echo data > d/f"],
    "check":["grep -qx real \"$STEPFAULT_ACKED\""]})");
  CommandResult r = Stepfault("blackbox record --spec " + spec + " --out rec");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ReadAll(dir_ + "/rec/acknowledged.txt"), "real\n");
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
}

TEST_F(HarnessChannelsTest, ACheckThatNeverReadsTheAcknowledgementsIsWarnedAbout) {
  std::string spec = WriteSpec("blind.json", R"({"name":"blind","dir":"d","setup":["mkdir -p d"],
    "run":["echo data > d/f; echo saved"], "check":["test -s d/f"]})");
  CommandResult r = Stepfault("blackbox record --spec " + spec + " --out rec");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("WARNING: no check command read $STEPFAULT_ACKED"), std::string::npos)
      << r.out;
}

TEST_F(HarnessChannelsTest, AnAckFileTheRunNeverWritesIsBadInputWhenTheSpecAsksForIt) {
  std::string spec = WriteSpec("file.json", R"({"name":"f","dir":"d","setup":["mkdir -p d"],
    "run":["echo data > d/f; echo saved"], "ack":"file"})");
  CommandResult r = Stepfault("blackbox record --spec " + spec + " --out rec");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("never wrote to $STEPFAULT_ACK_FILE"), std::string::npos) << r.err;
}

// runs.log sits beside the directory under test: what ran in the live ioerror run.
std::string ThreeCommands(const std::string& cmd1, const std::string& cmd2) {
  return R"({"name":"three","dir":"d","setup":["mkdir -p d; : > runs.log"],
    "run":[")" +
         cmd1 + R"(", ")" + cmd2 + R"(", "echo 3 >> runs.log; echo c > d/c"],
    "check":["test -d d"]})";
}

TEST_F(HarnessChannelsTest, AnIOErrorInALaterCommandRunsOnlyFromTheLastCommandBoundary) {
  std::string spec = WriteSpec("three.json", ThreeCommands("echo 1 >> runs.log; echo a > d/a",
                                                           "echo 2 >> runs.log; echo b > d/b"));
  CommandResult r =
      Stepfault("blackbox replay --spec " + spec + " --plan 'ioerror@fs.write[c]#1' --keep kept");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("started from the last command boundary"), std::string::npos) << r.out;
  EXPECT_EQ(ReadAll(dir_ + "/kept/recovered/runs.log"), "3\n");
  // The earlier commands' files came from the recording.
  EXPECT_EQ(ReadAll(dir_ + "/kept/crash-state/d/a"), "a\n");
  EXPECT_EQ(ReadAll(dir_ + "/kept/crash-state/d/b"), "b\n");
}

TEST_F(HarnessChannelsTest, ALaterCommandThatDependsOnMoreThanTheDirectoryRunsFromTheStart) {
  // Command 2 looks at a file outside the directory that command 1 made: from the boundary it
  // would write y instead of x, so the window's call is not the one that fails there.
  std::string spec = WriteSpec(
      "three.json",
      ThreeCommands("echo 1 >> runs.log; touch marker; echo a > d/a",
                    "echo 2 >> runs.log; if [ -e marker ]; then echo x > d/x; else echo y > d/y; "
                    "fi"));
  CommandResult r =
      Stepfault("blackbox replay --spec " + spec + " --plan 'ioerror@fs.write[x]#1' --keep kept");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ran every run command"), std::string::npos) << r.out;
  // Command 2 failed (its write did), which ends the life: command 3 never ran.
  EXPECT_EQ(ReadAll(dir_ + "/kept/recovered/runs.log"), "1\n2\n");
}

TEST(CanFailLiveTest, OnlyACallThatCarriesItsCountCanBeFailed) {
  faults::blackbox::Trace t;
  t.records.push_back({"write", 1, {{"w", "fs.write[a]"}, {"k", "1"}}, "x"});
  t.records.push_back({"write", 1, {{"w", "fs.write[b]"}, {"whole", "1"}}, "y"});  // a flush
  std::vector<faults::blackbox::TraceWindow> w = faults::blackbox::WindowsOf(t);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_TRUE(CanFailLive(t, w[0]));
  EXPECT_FALSE(CanFailLive(t, w[1]));
}

TEST(FailureClassTest, NumbersAndHashesAreBlankedSoOneKindOfFailureIsOneClass) {
  EXPECT_EQ(FailureClass({"INV-BB-CHECK", "lost commit 17 of 3fa2b1c9e0\nmore"}),
            FailureClass({"INV-BB-CHECK", "lost commit 4 of 0011aa22bb"}));
  EXPECT_EQ(FailureClass({"INV-BB-CHECK", "lost commit 17 of 3fa2b1c9e0"}), "lost commit # of #");
  EXPECT_NE(FailureClass({"INV-BB-CHECK", "lost commit 1"}),
            FailureClass({"INV-BB-CHECK", "fsck: repository is broken"}));
  EXPECT_EQ(FailureClass({"INV-BB-CHECK", "added faced decade"}), "added faced decade");
  EXPECT_EQ(FailureClass({"INV-BB-CHECK", "lost 3 (rows present: 1 2)"}),
            FailureClass({"INV-BB-CHECK", "lost 2 (rows present: 1)"}));
}

TEST(SqlCheckMessageTest, AMissingDatabaseNamesThePathItLookedForAndWhatItIsRelativeTo) {
  const std::string dir = test_env::ScratchDir("sqlmsg");
  scenarios::blackbox::Spec spec;
  spec.dir = "data";
  spec.sql_checks.push_back(
      {"app.db", "SELECT 1", scenarios::blackbox::SqlCheck::Expect::kEmpty, 0, {}});
  scenarios::blackbox::CheckContext c{&spec, dir, nullptr, {}};
  std::vector<scenarios::blackbox::CheckFailure> f = scenarios::blackbox::RunChecks(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("looked for data/app.db in the working directory"), std::string::npos)
      << f[0].message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace stepfault::properties::blackbox
