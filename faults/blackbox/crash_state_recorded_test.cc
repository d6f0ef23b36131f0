// Goal: the catalogue of crash states holds for real recordings, not only for hand-made traces:
// each entry marked `program` in testdata/crash_catalogue.txt is done by a real C program
// (testdata/crash_programs.c) under libstepfault_preload.so, and the recorded trace has the
// entry's windows and gives, at every window, exactly the entry's states. The replay of the whole
// trace must also give the directory the program really left (the recording's reconciliation).
// Method: the harness's recording steps by hand (initial snapshot, the recorder's environment, the
// trace header, the proc.exit record after the command), so this needs no `stepfault` binary.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "faults/blackbox/crash_catalogue_test_util.h"

namespace stepfault::faults::blackbox {
namespace {

namespace fs = std::filesystem;

class CrashStateRecordedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stepfault-crashconf-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Runs the program's `mode` on `work` under the recorder; returns its exit status.
  int RunRecorded(const std::string& mode, const fs::path& work, const fs::path& trace) {
    std::string preload = "LD_PRELOAD=" STEPFAULT_PRELOAD_PATH;
    std::string root = "STEPFAULT_BB_ROOT=" + fs::weakly_canonical(work).string();
    std::string trace_env = "STEPFAULT_BB_TRACE=" + trace.string();
    std::string dir = fs::weakly_canonical(work).string();
    pid_t pid = fork();
    if (pid == 0) {
      char* argv[] = {const_cast<char*>(STEPFAULT_CRASH_PROGRAMS), const_cast<char*>(mode.c_str()),
                      const_cast<char*>(dir.c_str()), nullptr};
      char* envp[] = {preload.data(), root.data(), trace_env.data(), nullptr};
      execve(argv[0], argv, envp);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }

  fs::path dir_;
};

TEST_F(CrashStateRecordedTest, RecordedProgramsGiveTheCataloguedStates) {
  ASSERT_TRUE(fs::exists(STEPFAULT_PRELOAD_PATH)) << STEPFAULT_PRELOAD_PATH;
  int programs = 0;
  for (const CatalogueEntry& e : testing::Catalogue()) {
    if (!e.program) continue;
    ++programs;
    SCOPED_TRACE(e.name);
    fs::path cell = dir_ / e.name, work = cell / "work", trace_path = cell / "run.sftrace";
    fs::create_directories(cell);
    ASSERT_TRUE(Materialise(e.initial, work.string()).ok());
    Result<CrashState> initial = LoadDirectory(work.string());
    ASSERT_TRUE(initial.ok()) << initial.status().ToString();
    std::ofstream(trace_path, std::ios::binary) << kTraceHeader;
    ASSERT_EQ(RunRecorded(e.name, work, trace_path), 0);
    std::ofstream(trace_path, std::ios::binary | std::ios::app)
        << FrameRecord("exit", getpid(), {{"w", "proc.exit[cmd1]"}, {"status", "0"}}, "");
    Result<Trace> trace = ReadTraceFile(trace_path.string());
    ASSERT_TRUE(trace.ok()) << trace.status().ToString();

    std::vector<CatalogueDisagreement> d = Disagreements(e, *initial, *trace, BuilderWith({}));
    EXPECT_TRUE(d.empty()) << testing::Join(d);

    Result<CrashState> left = LoadDirectory(work.string());
    ASSERT_TRUE(left.ok());
    CrashState replay =
        BuildCrashState(*initial, *trace, trace->records.size(), CrashKind::kCrash, 0);
    EXPECT_EQ(RenderState(replay), RenderState(*left))
        << "replaying the trace does not give the directory the program left";
  }
  EXPECT_GE(programs, 10);
}

}  // namespace
}  // namespace stepfault::faults::blackbox
