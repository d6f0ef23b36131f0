// Goal: no false alarm on a program whose writes are durable when they return. A program that
// appends each commit through an O_DSYNC descriptor and acknowledges it once the write returned
// (no fsync) passes every crash and power-loss window; the same program through an ordinary
// descriptor is caught losing an acknowledged commit on power loss (the crash model's rule for
// synced=data writes, docs/blackbox.md "Crash model"). Method: `stepfault blackbox explore` on a
// spec running stepfault-crash-programs (faults/blackbox/testdata/crash_programs.c) commit-dsync
// and commit-plain, with a check that every "committed N" acknowledged is in the log.
#include <fstream>
#include <nlohmann/json.hpp>

#include "properties/blackbox/blackbox_test_util.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using testing::ReadAll;
using Json = nlohmann::json;

class DurableAtReturnTest : public BlackboxCliTest {
 protected:
  CommandResult Explore(const std::string& mode) {
    WriteCommitCheck("cat \"$STEPFAULT_DIR/log\" 2>/dev/null");
    std::string spec = WriteSpec(mode + ".json", R"({"name":")" + mode + R"(","dir":"d",
      "setup":["mkdir -p d && : > d/log"],
      "run":["stepfault-crash-programs )" + mode + R"( $STEPFAULT_DIR"],
      "check":["sh $STEPFAULT_SPEC_DIR/check.sh"],"timeout_s":20})");
    return Stepfault("blackbox explore --spec " + spec + " --actions crash,powerloss --out " +
                     mode);
  }
};

TEST_F(DurableAtReturnTest, ACommitWrittenWithODsyncPassesEveryPowerLoss) {
  CommandResult r = Explore("commit-dsync");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json report = Json::parse(ReadAll(dir_ + "/commit-dsync/report.json"));
  EXPECT_TRUE(report["violations"].empty()) << report["violations"].dump(2);
  EXPECT_EQ(r.out.find("INCOMPLETE"), std::string::npos) << r.out;
}

TEST_F(DurableAtReturnTest, TheSameCommitWithoutODsyncLosesAnAcknowledgedCommitOnPowerLoss) {
  CommandResult r = Explore("commit-plain");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  Json report = Json::parse(ReadAll(dir_ + "/commit-plain/report.json"));
  bool lost = false;
  for (const Json& v : report["violations"]) {
    lost |=
        v["plan"] == "powerloss@proc.exit[cmd1]#1" &&
        v["message"].get<std::string>().find("was acknowledged but is lost") != std::string::npos;
  }
  EXPECT_TRUE(lost) << report["violations"].dump(2);
}

}  // namespace
}  // namespace stepfault::properties::blackbox
