// Goal: three promises of the command line that no input can reach from outside any more: an
// exception escaping a command becomes exit 2 (JSON input) or exit 4 with "please report" and the
// command line, never an abort (issue 16, item 15); and the report set is written all or nothing:
// a write error (a full disk) leaves the previous reports byte-identical and no temporary file
// behind (item 7); the summary of a mutant hunt says it ran on the built-in scenarios, whatever
// scenario the exploration ran (item 6).
// Method: GuardCommand around throwing bodies; WriteReportSet through a FailingEnv that fails the
// N-th write with ENOSPC, for every N until one succeeds, over a directory holding an older set.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "faults/failing_env.h"
#include "tools/cli/cli.h"
#include "tools/cli/cli_common.h"
#include "tools/testing/test_env.h"

namespace stepfault::cli {
namespace {
namespace fs = std::filesystem;

TEST(GuardCommandTest, EscapedExceptionsBecomeDocumentedExitCodes) {
  EXPECT_EQ(GuardCommand("stepfault x", [] { return 0; }), kExitOk);
  EXPECT_EQ(GuardCommand("stepfault x",
                         []() -> int { return nlohmann::json::parse("{").size() > 0 ? 0 : 1; }),
            kExitUsage);
  testing::internal::CaptureStderr();
  const int code =
      GuardCommand("stepfault replay 'a b'", []() -> int { throw std::runtime_error("boom"); });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, kExitInternal);
  EXPECT_NE(err.find("internal error: boom"), std::string::npos) << err;
  EXPECT_NE(err.find("please report"), std::string::npos) << err;
  EXPECT_NE(err.find("stepfault replay 'a b'"), std::string::npos) << err;
  EXPECT_EQ(GuardCommand("stepfault x", []() -> int { throw 42; }), kExitInternal);
}

std::map<std::string, std::string> Files(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out[e.path().filename().string()] = ss.str();
  }
  return out;
}

TEST(ReportSetTest, AFullDiskLeavesThePreviousReportSetWholeAndNoTempFiles) {
  const std::string dir = test_env::ScratchDir("report-set");
  reports::Report old_report;
  old_report.command = "stepfault explore --scenario fan-in";
  ASSERT_TRUE(WriteReportSet(PosixEnv(), dir, old_report).ok());
  const auto before = Files(dir);
  ASSERT_EQ(before.size(), 4u);
  reports::Report new_report;
  new_report.command = "stepfault explore --scenario approval";
  bool succeeded = false;
  for (uint64_t n = 1; n <= 16 && !succeeded; ++n) {
    faults::FailingEnv env(PosixEnv());
    env.Arm({faults::IoOp::kWrite, n, faults::IoError::kEnospc, true});
    Status s = WriteReportSet(&env, dir, new_report);
    if (s.ok()) {
      succeeded = true;
      break;
    }
    EXPECT_EQ(Files(dir), before) << "write #" << n << " failed and the report set changed";
  }
  EXPECT_TRUE(succeeded) << "the set never got written";
  for (const auto& [name, bytes] : Files(dir)) EXPECT_EQ(name.find(".tmp"), std::string::npos);
  fs::remove_all(dir);
}

// Issue 30 defect 4: two commands writing one --out shared the temporary names
// (.report.json.tmp), so one renamed the other's file away and failed after the reports were in
// fact written. Each writer's temporaries are its own, and a writer that finds the directory
// locked by another says so and changes nothing.
TEST(ReportSetTest, TemporariesAreUniqueAndALockedDirectoryIsRefusedSayingWhy) {
  const std::string dir =
      (fs::temp_directory_path() / ("sf_reportlock_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Another writer's temporary, under the name the old code used: never touched.
  std::ofstream(dir + "/.report.json.tmp") << "another writer";
  reports::Report report;
  report.command = "stepfault explore --scenario fan-in";
  ASSERT_TRUE(WriteReports(dir, report).ok());
  std::map<std::string, std::string> files = Files(dir);
  EXPECT_EQ(files[".report.json.tmp"], "another writer");
  EXPECT_EQ(files.size(), 5u) << "a temporary of ours was left behind";

  // Another command holds the directory: refused, the set unchanged.
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  reports::Report other;
  other.command = "stepfault explore --scenario approval";
  Status locked = WriteReports(dir, other);
  EXPECT_FALSE(locked.ok());
  EXPECT_NE(locked.message().find("another stepfault command is writing reports into"),
            std::string::npos)
      << locked.ToString();
  EXPECT_EQ(Files(dir), files);
  ::close(fd);
  EXPECT_TRUE(WriteReports(dir, other).ok());
  fs::remove_all(dir);
}

TEST(SummaryTest, TheMutantLineSaysTheHuntRanOnTheBuiltInScenarios) {
  reports::Report report;
  reports::MutantResult m;
  m.name = "engine:x";
  m.killed = true;
  report.mutants.push_back(m);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  PrintSummary(out, report, "");
  std::rewind(out);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), out));
  std::fclose(out);
  EXPECT_NE(text.find("mutants killed: 1/1 (hunted on the built-in scenarios)"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace stepfault::cli
