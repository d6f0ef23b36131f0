// Goal: the recorder's trace is complete for a multi-threaded program (the replay of the trace
// gives exactly the directory the run left), a writable shared mapping is seen at its flush points,
// and what it cannot see (a static binary) is reported as an incomplete trace (exit 5), never
// silently missed. Method: record the
// probes of examples/blackbox/probes with `stepfault blackbox record` and read its notes.
#include "properties/blackbox/blackbox_test_util.h"
#include "scenarios/exit_codes.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;

class BlackboxRecorderTest : public BlackboxCliTest {
 protected:
  CommandResult Record(const std::string& run) {
    std::string spec =
        WriteSpec("spec.json", R"({"name":"probe","dir":"d","run":[")" + run + R"("]})");
    return Stepfault("blackbox record --spec " + spec + " --out rec");
  }
};

TEST_F(BlackboxRecorderTest, AMultiThreadedProgramIsRecordedCompletelyInKernelOrder) {
  CommandResult r = Record("stepfault-example-probe threads $STEPFAULT_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("INCOMPLETE"), std::string::npos) << r.out;
  // 4 threads x 50 writes, 20 fsyncs, 20 renames, at least.
  std::string windows = testing::ReadAll(dir_ + "/rec/windows.txt");
  EXPECT_NE(windows.find("fs.write[thread-3.log]#50"), std::string::npos);
  EXPECT_NE(windows.find("fs.rename[pong]#10"), std::string::npos);
}

// Issue 31: the stores are seen at the flush point (msync) as writes of the changed page, so the
// trace replays to the directory the run left.
TEST_F(BlackboxRecorderTest, AWritableSharedMappingIsRecordedAtItsMsyncAndTheTraceIsComplete) {
  CommandResult r = Record("stepfault-example-probe mmap $STEPFAULT_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("INCOMPLETE"), std::string::npos) << r.out;
  std::string windows = testing::ReadAll(dir_ + "/rec/windows.txt");
  EXPECT_NE(windows.find("map.write[mapped.bin]#1\nfs.msync[mapped.bin]#1\n"), std::string::npos)
      << windows;
}

TEST_F(BlackboxRecorderTest, AStaticBinaryIsReportedNotMissed) {
  CommandResult r =
      Record("echo a > $STEPFAULT_DIR/a; stepfault-example-probe-static plain $STEPFAULT_DIR");
  ASSERT_EQ(r.exit_code, kExitInconclusive) << r.out << r.err;
  EXPECT_NE(r.out.find("INCONCLUSIVE: the recording is incomplete"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("INCOMPLETE TRACE: static-binary"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("plain.txt is on disk but not in the trace"), std::string::npos) << r.out;
  // Alone, a static binary's writes leave no window at all: bad input, with the reason.
  CommandResult alone = Record("stepfault-example-probe-static plain $STEPFAULT_DIR");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("zero windows"), std::string::npos) << alone.err;
}

}  // namespace
}  // namespace stepfault::properties::blackbox
