// Goal: the command line keeps its contract in real, separate processes: Demo320's exercise
// (start; resume with --fail-after-write exits 1 yet the item is stored; the same resume returns
// the same ItemId with one row; an edited comment fails; a refusal creates no row; a second host is
// refused; --crash-at at every business window followed by resume ends Completed with one row),
// and the exit statuses 0/1/2/3 of the exploring commands.
// Method: run build/bin/stepfault with popen/system in scratch directories and read business.db
// with SQLite directly.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "engine/env.h"
#include "scenarios/approval/receipt.h"
#include "tools/cli/cli_test_util.h"

namespace stepfault::cli {
namespace {
namespace fs = std::filesystem;

using testing::ProcessRun;
using testing::Stepfault;

std::string Scratch(const std::string& name) { return testing::Scratch("sf_cli", name); }

int RowCount(const std::string& dir) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2((dir + "/business.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(db);
    return -1;
  }
  sqlite3_stmt* st = nullptr;
  int n = -1;
  if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM ApprovedBacklogItems", -1, &st, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    n = sqlite3_column_int(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

const char* kComment = "\"External business decision.\"";

TEST(ApprovalCliTest, Demo320ExerciseAcrossProcesses) {
  const std::string dir = Scratch("demo320");
  ProcessRun start = Stepfault("approval start --dir " + dir);
  ASSERT_EQ(start.exit_code, 0) << start.out;
  EXPECT_NE(start.out.find("OperationId: "), std::string::npos);
  EXPECT_NE(start.out.find("RequestId: "), std::string::npos);
  EXPECT_NE(Stepfault("approval status --dir " + dir).out.find("Status: Waiting"),
            std::string::npos);

  ProcessRun failed =
      Stepfault("approval resume --dir " + dir + " approve " + kComment + " --fail-after-write");
  EXPECT_EQ(failed.exit_code, 1) << failed.out;
  ProcessRun status = Stepfault("approval status --dir " + dir);
  EXPECT_NE(status.out.find("Status: Completed"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("StoredItem: 1"), std::string::npos) << status.out;

  ProcessRun replay = Stepfault("approval resume --dir " + dir + " approve " + kComment);
  EXPECT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_NE(replay.out.find("ItemId: 1"), std::string::npos) << replay.out;
  EXPECT_EQ(RowCount(dir), 1);

  ProcessRun edited = Stepfault("approval resume --dir " + dir + " approve \"An edited comment.\"");
  EXPECT_EQ(edited.exit_code, 2) << edited.out;
  EXPECT_NE(edited.out.find("must repeat it exactly"), std::string::npos) << edited.out;
  EXPECT_EQ(RowCount(dir), 1);

  // A refusal on another operation is final and creates no row.
  const std::string other = Scratch("refusal");
  ASSERT_EQ(Stepfault("approval start --dir " + other + " --draft \"Another proposal\"").exit_code,
            0);
  ProcessRun refused =
      Stepfault("approval resume --dir " + other + " reject \"Not this quarter.\"");
  EXPECT_EQ(refused.exit_code, 0) << refused.out;
  EXPECT_NE(Stepfault("approval status --dir " + other).out.find("Status: Rejected"),
            std::string::npos);
  EXPECT_EQ(RowCount(other), 0);
  EXPECT_EQ(Stepfault("approval resume --dir " + other + " approve " + kComment).exit_code, 2);
  EXPECT_EQ(RowCount(other), 0);
  fs::remove_all(dir);
  fs::remove_all(other);
}

TEST(ApprovalCliTest, ASecondHostOnTheSameDirectoryIsRefused) {
  const std::string dir = Scratch("lease");
  ASSERT_EQ(Stepfault("approval start --dir " + dir).exit_code, 0);
  auto lease = PosixEnv()->LockFile(dir + "/host.lease");  // this test is the first host
  ASSERT_TRUE(lease.ok());
  ProcessRun second = Stepfault("approval resume --dir " + dir + " approve " + kComment);
  EXPECT_EQ(second.exit_code, 2) << second.out;
  EXPECT_NE(second.out.find("another host"), std::string::npos) << second.out;
  lease.value().reset();
  EXPECT_EQ(RowCount(dir), 0);
  EXPECT_EQ(Stepfault("approval resume --dir " + dir + " approve " + kComment).exit_code, 0);
  fs::remove_all(dir);
}

TEST(ApprovalCliTest, BadInputExitsTwoAndChangesNothing) {
  const std::string dir = Scratch("bad");
  ASSERT_EQ(Stepfault("approval start --dir " + dir).exit_code, 0);
  const std::string before = *PosixEnv()->ReadFile(dir + "/waiting.json");
  EXPECT_EQ(Stepfault("approval resume --dir " + dir + " maybe " + kComment).exit_code, 2);
  EXPECT_EQ(Stepfault("approval resume --dir " + dir + " approve \"   \"").exit_code, 2);
  EXPECT_EQ(Stepfault("approval resume --dir " + dir + " approve \"" + std::string(501, 'x') + "\"")
                .exit_code,
            2);
  EXPECT_EQ(Stepfault("approval start --dir " + dir).exit_code, 2);  // already holds an operation
  EXPECT_EQ(Stepfault("approval status --dir " + dir + "-missing").exit_code, 2);
  EXPECT_EQ(Stepfault("approval start --dir " + dir + " --crash-at \"bad point\"").exit_code, 2);
  EXPECT_EQ(*PosixEnv()->ReadFile(dir + "/waiting.json"), before);
  EXPECT_NE(Stepfault("approval status --dir " + dir).out.find("Status: Waiting"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(ApprovalCliTest, CrashAtEveryBusinessWindowThenResumeEndsCompletedWithOneRow) {
  struct Case {
    const char* command;
    const char* point;
  };
  const Case cases[] = {
      {"start", "checkpoint.commit.after#1"},
      {"start", "receipt.publish.before"},
      {"start", "fs.rename[receipt]"},
      {"start", "receipt.publish.after"},
      {"resume", "host.resume"},
      {"resume", "decision.record.after"},
      {"resume", "effect.commit.before"},
      {"resume", "effect.commit.after"},
      {"resume", "checkpoint.commit.after#2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.command) + " --crash-at " + c.point);
    const std::string dir = Scratch("crash");
    const std::string crash = std::string(" --crash-at '") + c.point + "'";
    const std::string resume = "approval resume --dir " + dir + " approve " + kComment;
    if (std::string(c.command) == "start") {
      ProcessRun killed = Stepfault("approval start --dir " + dir + crash);
      EXPECT_EQ(killed.exit_code, -SIGKILL) << killed.out;
      ProcessRun again = Stepfault("approval start --dir " + dir);
      // Killed after the receipt was published: the directory already holds the operation.
      EXPECT_TRUE(again.exit_code == 0 || again.out.find("already holds") != std::string::npos)
          << again.out;
    } else {
      ASSERT_EQ(Stepfault("approval start --dir " + dir).exit_code, 0);
      ProcessRun killed = Stepfault(resume + crash);
      EXPECT_EQ(killed.exit_code, -SIGKILL) << killed.out;
    }
    ProcessRun done = Stepfault(resume);
    EXPECT_EQ(done.exit_code, 0) << done.out;
    EXPECT_NE(Stepfault("approval status --dir " + dir).out.find("Status: Completed"),
              std::string::npos);
    EXPECT_EQ(RowCount(dir), 1);
    fs::remove_all(dir);
  }
}

TEST(ExploreCliTest, ExitStatusesFollowTheContract) {
  const std::string out = Scratch("explore");
  EXPECT_EQ(Stepfault("explore --scenario nope --out " + out).exit_code, 2);
  EXPECT_EQ(Stepfault("explore --all --scenario fan-in --out " + out).exit_code, 2);
  EXPECT_EQ(Stepfault("explore --scenario fan-in --hazard no-such --out " + out).exit_code, 2);
  ProcessRun bad_plan = Stepfault("replay fan-in --plan 'crash@fs.rename[checkpoint]'");
  EXPECT_EQ(bad_plan.exit_code, 2);
  EXPECT_NE(bad_plan.out.find("position"), std::string::npos) << bad_plan.out;
  ProcessRun pass = Stepfault(
      "explore --scenario fan-in --store file --actions crash --depth 1 --quiet --out " + out);
  EXPECT_EQ(pass.exit_code, 0) << pass.out;
  EXPECT_TRUE(fs::exists(out + "/report.json") && fs::exists(out + "/report.html") &&
              fs::exists(out + "/summary.md") && fs::exists(out + "/junit.xml"));
  ProcessRun low = Stepfault(
      "explore --scenario fan-in --store file --actions crash --depth 1 --shard 1/2 --min-coverage "
      "90 "
      "--quiet "
      "--out " +
      out);
  EXPECT_EQ(low.exit_code, 3) << low.out;
  // --actions crash leaves every other action filtered: honestly partial, so 100% fails.
  ProcessRun partial = Stepfault(
      "explore --scenario fan-in --store file --actions crash --depth 1 --min-coverage 100 --quiet "
      "--out " +
      out);
  EXPECT_EQ(partial.exit_code, 3) << partial.out;
  EXPECT_EQ(Stepfault("explore --scenario fan-in --depth 4 --out " + out).exit_code, 2);
  ProcessRun compat = Stepfault(
      "explore --scenario fan-in --store file --actions topology --depth 1 --profile maf-compat "
      "--quiet --out " +
      out);
  EXPECT_EQ(compat.exit_code, 1) << compat.out;
  fs::remove_all(out);
}

// Issue 30: progress is one count over the whole run (the variants explore will run, two stores
// here), not a count per variant that restarts; on a pipe a line per 10% of the whole run, the
// current variant named, and the last line the whole count.
TEST(ExploreCliTest, ProgressCountsTheWholeRunsVariantsAndNamesTheCurrentOne) {
  const std::string out = Scratch("explore-progress");
  ProcessRun run = Stepfault(
      "explore --scenario restore-pruning --store file,sqlite --actions crash --depth 1 --out " +
      out);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(run.out.find("cells\n"), std::string::npos) << "a per-variant count: " << run.out;
  EXPECT_NE(run.out.find("explore: 2/2 variants\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("variants (restore-pruning [store=sqlite]: level 1, "), std::string::npos)
      << run.out;
  int lines = 0;
  for (size_t at = run.out.find("explore: "); at != std::string::npos;
       at = run.out.find("explore: ", at + 1))
    ++lines;
  EXPECT_LE(lines, 10) << run.out;
  fs::remove_all(out);
}

}  // namespace
}  // namespace stepfault::cli

namespace stepfault::cli {
namespace {

TEST(ReportCliTest, MergedShardsEqualTheUnshardedReportAndRenderAndBenchWork) {
  const std::string base = Scratch("report");
  ASSERT_EQ(
      Stepfault("explore --scenario fan-in --store file --actions crash --depth 1 --quiet --out " +
                base + "/all")
          .exit_code,
      0);
  ASSERT_EQ(
      Stepfault(
          "explore --scenario fan-in --store file --actions crash --depth 1 --shard 1/2 --quiet "
          "--out " +
          base + "/s1")
          .exit_code,
      0);
  ASSERT_EQ(
      Stepfault(
          "explore --scenario fan-in --store file --actions crash --depth 1 --shard 2/2 --quiet "
          "--out " +
          base + "/s2")
          .exit_code,
      0);
  ProcessRun merged = Stepfault("report merge " + base + "/s1/report.json " + base +
                                "/s2/report.json --out " + base + "/merged");
  ASSERT_EQ(merged.exit_code, 0) << merged.out;
  auto a = *PosixEnv()->ReadFile(base + "/all/report.json");
  auto m = *PosixEnv()->ReadFile(base + "/merged/report.json");
  // The command line differs; everything else must be identical.
  auto strip = [](std::string s) {
    size_t at = s.find("\"command\"");
    size_t end = s.find('\n', at);
    return s.erase(at, end - at);
  };
  EXPECT_EQ(strip(a), strip(m));
  EXPECT_EQ(Stepfault("report merge " + base + "/s1/report.json --out " + base + "/bad").exit_code,
            2);
  ASSERT_EQ(
      Stepfault("report render " + base + "/all/report.json --out " + base + "/rendered").exit_code,
      0);
  EXPECT_EQ(*PosixEnv()->ReadFile(base + "/rendered/report.html"),
            *PosixEnv()->ReadFile(base + "/all/report.html"));
  // A tiny Google Benchmark JSON becomes charts in the HTML report.
  const std::string bench = base + "/bench.json";
  {
    auto f = PosixEnv()->NewWritableFile(bench);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Append(R"({"context":{},"benchmarks":[
      {"name":"BM_Step/mode:memory/shape:fanin/width:8/state:100","run_type":"iteration","real_time":1200,"cpu_time":1100,"time_unit":"ns","ratio":1.5},
      {"name":"BM_Step/mode:none/shape:fanin/width:8/state:100","run_type":"iteration","real_time":800,"cpu_time":790,"time_unit":"ns"}]})")
                    .ok());
    ASSERT_TRUE((*f)->Close().ok());
  }
  ProcessRun charted = Stepfault("report bench " + bench + " --report " + base +
                                 "/all/report.json --out " + base + "/charts");
  ASSERT_EQ(charted.exit_code, 0) << charted.out;
  const std::string html = *PosixEnv()->ReadFile(base + "/charts/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("BM_Step"), std::string::npos);
  EXPECT_EQ(Stepfault("report bench " + base + "/missing.json --out " + base + "/x").exit_code, 2);
  fs::remove_all(base);
}

}  // namespace
}  // namespace stepfault::cli

namespace stepfault::cli {
namespace {

TEST(ApprovalCliTest, AnUnknownGraphVersionIsRejectedAndNothingChanges) {
  const std::string dir = Scratch("version");
  ASSERT_EQ(Stepfault("approval start --dir " + dir).exit_code, 0);
  auto receipt = scenarios::ReadReceipt(PosixEnv(), dir);
  ASSERT_TRUE(receipt.ok() && receipt->has_value());
  scenarios::WaitingReceipt r = **receipt;
  r.graph_version = "approval-graph/0";
  ASSERT_TRUE(scenarios::PublishReceipt(PosixEnv(), dir, r).ok());
  ProcessRun resumed = Stepfault("approval resume --dir " + dir + " approve " + kComment);
  EXPECT_EQ(resumed.exit_code, 2) << resumed.out;
  EXPECT_NE(resumed.out.find("unknown to this host"), std::string::npos) << resumed.out;
  EXPECT_EQ(RowCount(dir), 0);
  EXPECT_NE(Stepfault("approval status --dir " + dir).out.find("Status: Waiting"),
            std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stepfault::cli
