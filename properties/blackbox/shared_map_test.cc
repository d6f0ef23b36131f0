// Goal: a program that writes through a writable MAP_SHARED mapping is explored, not guessed at
// (issue 31, item 2). The recorder turns msync (and munmap, fsync, an acknowledgement, exit) into
// writes of the pages that changed and MS_SYNC into a data barrier, so a program that acknowledges
// each commit after msync(MS_SYNC) passes every crash and power loss, with windows at its flush
// points, and the same program acknowledging before its msync is caught losing an acknowledged
// commit on power loss. I/O the recorder cannot see (copy_file_range, a mapping never flushed)
// makes the exploration INCONCLUSIVE, exit 5, with what was not seen in summary.md, junit.xml and
// report.json, never PASS or VIOLATION; naming that file in the spec's `volatile` leaves it out
// and the same program passes. Method: `stepfault blackbox explore` on specs running
// stepfault-crash-programs (faults/blackbox/testdata/crash_programs.c) map-commit, map-ack-early
// and map-unseen, with a check that every "committed N" acknowledged is in the file.
#include <nlohmann/json.hpp>
#include <set>

#include "properties/blackbox/blackbox_test_util.h"
#include "scenarios/exit_codes.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using testing::ReadAll;
using Json = nlohmann::json;

class SharedMapTest : public BlackboxCliTest {
 protected:
  // Explores `mode` on a directory holding an 8192-byte `data` (zeros); the check reads `file`.
  CommandResult Explore(const std::string& mode, const std::string& file,
                        const std::string& extra = "") {
    WriteCommitCheck("tr -d '\\000' < \"$STEPFAULT_DIR/" + file + "\"");
    std::string spec = WriteSpec(mode + ".json", R"({"name":")" + mode + R"(","dir":"d",
      "setup":["mkdir -p d && head -c 8192 /dev/zero > d/data"],
      "run":["stepfault-crash-programs )" + mode + R"( $STEPFAULT_DIR"],
      "check":["sh $STEPFAULT_SPEC_DIR/check.sh"],"timeout_s":20)" +
                                                     extra + "}");
    return Stepfault("blackbox explore --spec " + spec + " --actions crash,powerloss --out " +
                     mode);
  }
  Json Report(const std::string& mode) {
    return Json::parse(ReadAll(dir_ + "/" + mode + "/report.json"));
  }
};

TEST_F(SharedMapTest, ACommitMadeDurableWithMsyncBeforeItsAcknowledgementPassesWithFlushWindows) {
  CommandResult r = Explore("map-commit", "data");
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  Json report = Report("map-commit");
  EXPECT_EQ(report["verdict"], "pass");
  EXPECT_TRUE(report["violations"].empty()) << report["violations"].dump(2);
  EXPECT_FALSE(report.contains("inconclusive"));
  std::set<std::string> windows;
  for (const Json& w : report["scenarios"][0]["windows"]) windows.insert(w["id"]);
  for (const char* w :
       {"map.write[data]#1", "fs.msync[data]#1", "map.write[data]#2", "fs.msync[data]#2"})
    EXPECT_TRUE(windows.count(w)) << w << " not in " << report["scenarios"][0]["windows"].dump();
}

TEST_F(SharedMapTest, AnAcknowledgementBeforeTheMsyncLosesTheCommitOnPowerLossOnly) {
  CommandResult r = Explore("map-ack-early", "data");
  ASSERT_EQ(r.exit_code, kExitViolation) << r.out << r.err;
  const Json report = Report("map-ack-early");
  bool lost = false;
  for (const Json& v : report["violations"]) {
    // The page cache holds a store once it is made: a crash never loses it (the recorder saw it
    // at the acknowledgement); only a power loss before the msync does.
    EXPECT_EQ(v["action"], "powerloss") << v.dump(2);
    lost |= v["plan"] == "powerloss@fs.msync[data]#1" &&
            v["message"].get<std::string>().find("commit 1 was acknowledged but is lost") !=
                std::string::npos;
  }
  EXPECT_TRUE(lost) << report["violations"].dump(2);
}

TEST_F(SharedMapTest, IoTheRecorderCannotSeeIsInconclusiveWithExitFiveAndTheReasonEverywhere) {
  CommandResult r = Explore("map-unseen", "log");
  ASSERT_EQ(r.exit_code, kExitInconclusive) << r.out << r.err;
  EXPECT_NE(r.out.find("INCONCLUSIVE"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("VIOLATION"), std::string::npos) << r.out;
  Json report = Report("map-unseen");
  EXPECT_EQ(report["verdict"], "inconclusive");
  EXPECT_EQ(report["inconclusive"],
            Json::array({"replaying the trace does not give the directory the run left "
                         "(cache.idx differs)",
                         "copy_file_range: cache.idx"}));
  EXPECT_EQ(report["coverage"]["cells_exercised"], 0);  // nothing explored
  const std::string summary = ReadAll(dir_ + "/map-unseen/summary.md");
  EXPECT_NE(summary.find("**INCONCLUSIVE"), std::string::npos) << summary;
  EXPECT_NE(summary.find("- copy_file_range: cache.idx\n"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("PASS"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("VIOLATION"), std::string::npos) << summary;
  const std::string junit = ReadAll(dir_ + "/map-unseen/junit.xml");
  EXPECT_NE(junit.find("<error type=\"inconclusive\" message=\"INCONCLUSIVE: the recording is "
                       "incomplete: replaying the trace"),
            std::string::npos)
      << junit;
  EXPECT_EQ(junit.find("<failure"), std::string::npos) << junit;
  // replay and record say the same, with the same exit code.
  CommandResult replay = Stepfault("blackbox replay --spec " + dir_ +
                                   "/map-unseen.json --plan 'crash@fs.write[log]#1'");
  EXPECT_EQ(replay.exit_code, kExitInconclusive) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("INCOMPLETE TRACE: copy_file_range: cache.idx"), std::string::npos)
      << replay.out;
  CommandResult record = Stepfault("blackbox record --spec " + dir_ + "/map-unseen.json --out rec");
  EXPECT_EQ(record.exit_code, kExitInconclusive) << record.out << record.err;
}

TEST_F(SharedMapTest, AVolatileFileIsLeftOutAndNotReported) {
  CommandResult r = Explore("map-unseen", "log", R"(,"volatile":["*.idx"])");
  EXPECT_EQ(r.exit_code, kExitOk) << r.out << r.err;
  Json report = Report("map-unseen");
  EXPECT_EQ(report["verdict"], "pass");
  EXPECT_FALSE(report.contains("inconclusive"));
  EXPECT_EQ(r.out.find("INCOMPLETE"), std::string::npos) << r.out;
  // The volatile file is in no crash state: no cell's recovery ever sees it.
  CommandResult kept = Stepfault("blackbox replay --spec " + dir_ +
                                 "/map-unseen.json --plan 'crash@proc.exit[cmd1]#1' --keep kept");
  EXPECT_EQ(kept.exit_code, kExitOk) << kept.out << kept.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/kept/crash-state/d/log"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/kept/crash-state/d/cache.idx"));
}

}  // namespace
}  // namespace stepfault::properties::blackbox
