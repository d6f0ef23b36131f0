// Goal: Ctrl-C (SIGINT to the whole foreground group) or SIGTERM (to the parent alone, as a CI
// timeout sends it) stops `explore` cleanly: it exits 130, writes the report of what ran marked
// partial (verdict "interrupted", "interrupted": the signal), says so in its summary, a
// --min-coverage gate cannot pass it, and no worker outlives it. Method: start the exhaustive
// default exploration (far longer than the test), signal it two seconds in, read what it left.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tools/cli/cli_test_util.h"

namespace stepfault::cli {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Interrupted {
  int exit_code = -1;
  std::string stdout_text, report;
  bool group_left = false;  // a process of the run's group still alive after it exited
};

// Runs `explore --all ... --out DIR` in a process group of its own, signals it after two seconds
// (`to_group`: the whole group, as a terminal's Ctrl-C does; else the parent only).
Interrupted RunAndSignal(const std::string& dir, int sig, bool to_group,
                         const std::vector<std::string>& extra) {
  std::filesystem::create_directories(dir);
  const pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    if (::freopen((dir + "/stdout").c_str(), "w", stdout) == nullptr) ::_exit(126);
    if (::freopen((dir + "/stderr").c_str(), "w", stderr) == nullptr) ::_exit(126);
    std::vector<std::string> args = {testing::Binary(), "explore",   "--all", "--jobs", "2",
                                     "--out",           dir + "/out"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  Interrupted r;
  if (child < 0) return r;
  ::setpgid(child, child);
  ::sleep(2);
  ::kill(to_group ? -child : child, sig);
  int status = 0;
  ::waitpid(child, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  for (int i = 0; i < 50 && ::kill(-child, 0) == 0; ++i) ::usleep(100 * 1000);
  r.group_left = ::kill(-child, 0) == 0;
  r.stdout_text = ReadAll(dir + "/stdout");
  r.report = ReadAll(dir + "/out/report.json");
  return r;
}

TEST(ExploreInterruptTest, CtrlCWritesAPartialReportExits130AndLeavesNoWorker) {
  const std::string dir = testing::Scratch("interrupt", "sigint");
  const Interrupted r = RunAndSignal(dir, SIGINT, /*to_group=*/true, {});
  EXPECT_EQ(r.exit_code, 130) << r.stdout_text << ReadAll(dir + "/stderr");
  EXPECT_NE(r.report.find("\"interrupted\": \"SIGINT\""), std::string::npos);
  EXPECT_NE(r.report.find("\"verdict\": \"interrupted\""), std::string::npos);
  EXPECT_NE(r.report.find("not explored: the run was interrupted before it"), std::string::npos);
  EXPECT_NE(r.stdout_text.find("interrupted by SIGINT: the report is partial"), std::string::npos)
      << r.stdout_text;
  EXPECT_EQ(r.report.find("\"invariant\": \"INV-HARNESS\""), std::string::npos)
      << "a worker killed by the Ctrl-C was blamed on its plan";
  EXPECT_FALSE(r.group_left) << "a worker outlived explore";
}

TEST(ExploreInterruptTest, SigtermToTheParentAloneStopsItsWorkersAndFailsTheCoverageGate) {
  const std::string dir = testing::Scratch("interrupt", "sigterm");
  const Interrupted r =
      RunAndSignal(dir, SIGTERM, /*to_group=*/false, {"--min-coverage", "1", "--quiet"});
  EXPECT_EQ(r.exit_code, 130) << r.stdout_text << ReadAll(dir + "/stderr");
  EXPECT_NE(r.report.find("\"interrupted\": \"SIGTERM\""), std::string::npos);
  EXPECT_NE(ReadAll(dir + "/out/junit.xml").find("type=\"interrupted\""), std::string::npos);
  EXPECT_NE(ReadAll(dir + "/out/summary.md").find("PARTIAL (interrupted by SIGTERM)"),
            std::string::npos);
  EXPECT_FALSE(r.group_left) << "a worker outlived explore";
}

}  // namespace
}  // namespace stepfault::cli
