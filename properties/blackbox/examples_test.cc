// Goal: black-box mode finds real crash-consistency bugs in unmodified programs and passes correct
// ones, end to end through `stepfault blackbox`: a JSON state saved in place is caught (a crash
// empties it; a power loss after it said "saved 2" brings back version 1) while the atomic save
// passes every window; the sqlite3 CLI keeps every acknowledged commit with synchronous=EXTRA and
// loses one with FULL (the journal's unlink is not durable) and with OFF, and the report says
// which; depth-1 and depth-2 shards merge into the unsharded report; ioerror cells that leave the
// same directory are checked once; a bug that needs two faults is shrunk to a minimal, replayable
// plan. Method: run the stepfault binary on the specs in examples/blackbox/ and read report.json
// and the replay output. The full sqlite sweeps (every action, WAL) run with STEPFAULT_LONG=1.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "properties/blackbox/blackbox_test_util.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using testing::Example;
using testing::ReadAll;
using Json = nlohmann::json;

std::vector<std::string> Invariants(const Json& report) {
  std::vector<std::string> ids;
  for (const Json& r : report["scenarios"][0]["invariant_results"]) ids.push_back(r["id"]);
  return ids;
}

bool HasViolation(const Json& report, const std::string& plan, const std::string& text) {
  for (const Json& v : report["violations"]) {
    if (v["plan"] == plan && v["message"].get<std::string>().find(text) != std::string::npos)
      return true;
  }
  return false;
}

TEST_F(BlackboxCliTest, InPlaceJsonSaveIsCaughtUnderCrashAndPowerLoss) {
  CommandResult r =
      Stepfault("blackbox explore --spec " + Example("json-state/inplace.json") + " --out out");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  Json report = Json::parse(ReadAll(dir_ + "/out/report.json"));
  EXPECT_TRUE(HasViolation(report, "powerloss@proc.exit[cmd1]#1",
                           "acknowledged \\\"saved 2\\\" but state.json holds version 1") ||
              HasViolation(report, "powerloss@proc.exit[cmd1]#1",
                           "acknowledged \"saved 2\" but state.json holds version 1"))
      << report["violations"].dump(2);
  EXPECT_TRUE(HasViolation(report, "crash@fs.write[state.json]#1", "holds no whole state"))
      << report["violations"].dump(2);
  for (const char* f : {"report.html", "summary.md", "junit.xml"})
    EXPECT_TRUE(std::filesystem::exists(dir_ + "/out/" + f)) << f;
  // The plan replays, and --keep leaves the crash state and the recovered directory.
  CommandResult replay = Stepfault("blackbox replay --spec " + Example("json-state/inplace.json") +
                                   " --plan 'powerloss@proc.exit[cmd1]#1' --keep kept");
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("holds version 1"), std::string::npos) << replay.out;
  EXPECT_EQ(ReadAll(dir_ + "/kept/crash-state/data/state.json").rfind("{\"version\":1,", 0), 0u);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/kept/recovered/data/state.json"));
}

TEST_F(BlackboxCliTest, AtomicJsonSavePassesEveryWindowAndJobsDoNotChangeTheReport) {
  CommandResult r = Stepfault("blackbox explore --spec " + Example("json-state/atomic.json") +
                              " --depth 2 --out one");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  Json one = Json::parse(ReadAll(dir_ + "/one/report.json"));
  const Json& s = one["scenarios"][0];
  EXPECT_GE(s["windows"].size(), 10u);
  // Depth 2 crashes and powers off the recovery life's windows (the rows "recover:..."); the other
  // actions are not run there.
  int recovery_pairs = 0;
  for (const Json& c : s["cells"]) {
    const bool depth2_action = c["action"] == "crash" || c["action"] == "powerloss";
    if (c["window"].get<std::string>().rfind("recover:", 0) == 0 && !depth2_action) {
      EXPECT_EQ(c["outcome"], "not-run") << c.dump();
      continue;
    }
    recovery_pairs += c["window"].get<std::string>().rfind("recover:", 0) == 0 ? 1 : 0;
    EXPECT_TRUE(c["outcome"] == "pass" || c["outcome"] == "n/a") << c.dump();
  }
  EXPECT_GT(recovery_pairs, 0);
  // Depth 2 ran, and every (window, recovery window) pair of this small example was run.
  const std::string description = s["description"].get<std::string>();
  EXPECT_NE(description.find("depth 2: "), std::string::npos) << description;
  CommandResult r2 = Stepfault("blackbox explore --spec " + Example("json-state/atomic.json") +
                               " --depth 2 --jobs 2 --out two");
  ASSERT_EQ(r2.exit_code, 0) << r2.out << r2.err;
  Json two = Json::parse(ReadAll(dir_ + "/two/report.json"));
  EXPECT_EQ(one["scenarios"], two["scenarios"]);
}

TEST_F(BlackboxCliTest, ShardsMergeIntoTheUnshardedReport) {
  const std::string spec = Example("json-state/inplace.json");
  ASSERT_EQ(Stepfault("blackbox explore --spec " + spec + " --out all").exit_code, 1);
  // Each shard runs half of the cells (its exit status covers only those).
  Stepfault("blackbox explore --spec " + spec + " --shard 1/2 --out s1");
  Stepfault("blackbox explore --spec " + spec + " --shard 2/2 --out s2");
  CommandResult merged = Stepfault("report merge s1/report.json s2/report.json --out merged");
  ASSERT_EQ(merged.exit_code, 1) << merged.out
                                 << merged.err;  // the merged report has the violations
  Json all = Json::parse(ReadAll(dir_ + "/all/report.json"));
  Json m = Json::parse(ReadAll(dir_ + "/merged/report.json"));
  EXPECT_EQ(all["scenarios"][0]["cells"], m["scenarios"][0]["cells"]);
  EXPECT_EQ(all["scenarios"][0]["description"], m["scenarios"][0]["description"]);
  EXPECT_EQ(all["violations"].size(), m["violations"].size());
}

// Issue 30: blackbox explore shows one progress count over the whole run (on a pipe, a line per
// 10% and the last at total), nothing with --quiet, and takes its shard from the CI environment as
// explore does, saying so.
TEST_F(BlackboxCliTest,
       ProgressCountsTheRunQuietSilencesItTheEnvironmentShardsAndUnusedChecksDoNotApply) {
  const std::string spec = Example("json-state/inplace.json");
  CommandResult shown = Stepfault("blackbox explore --spec " + spec + " --jobs 2 --out shown");
  ASSERT_EQ(shown.exit_code, 1) << shown.out << shown.err;
  const size_t last = shown.err.rfind("blackbox json-inplace: ");
  ASSERT_NE(last, std::string::npos) << shown.err;
  long done = -1, total = -2;
  ASSERT_EQ(
      std::sscanf(shown.err.c_str() + last, "blackbox json-inplace: %ld/%ld runs", &done, &total),
      2)
      << shown.err;
  EXPECT_EQ(done, total);
  // The count is the run's: each distinct crash state recovered once, each ioerror cell run live
  // and then recovered (or settled by another that left the same directory).
  long cells = 0, states = 0, ioerror = 0;
  const size_t crash_line = shown.out.find(" crash-state cells -> ");
  ASSERT_NE(crash_line, std::string::npos) << shown.out;
  ASSERT_EQ(std::sscanf(shown.out.c_str() + shown.out.rfind('\n', crash_line) + 1,
                        "%ld crash-state cells -> %ld distinct states", &cells, &states),
            2)
      << shown.out;
  const size_t io_line = shown.out.find(" ioerror cells (run live)");
  ASSERT_NE(io_line, std::string::npos) << shown.out;
  ASSERT_EQ(std::sscanf(shown.out.c_str() + shown.out.rfind('\n', io_line) + 1, "%ld", &ioerror),
            1);
  EXPECT_GT(states, 0);
  EXPECT_GT(ioerror, 0);
  EXPECT_EQ(total, states + 2 * ioerror) << shown.out;
  CommandResult quiet =
      Stepfault("blackbox explore --spec " + spec + " --jobs 2 --quiet --out quiet");
  ASSERT_EQ(quiet.exit_code, 1);
  EXPECT_EQ(quiet.err.find("runs"), std::string::npos) << quiet.err;
  EXPECT_EQ(Json::parse(ReadAll(dir_ + "/shown/report.json"))["scenarios"],
            Json::parse(ReadAll(dir_ + "/quiet/report.json"))["scenarios"]);
  // No SQL checks and no database: those invariants are not applicable, not "held" (issue 30).
  EXPECT_EQ(Invariants(Json::parse(ReadAll(dir_ + "/shown/report.json"))),
            std::vector<std::string>({"INV-BB-CHECK", "INV-LIVENESS"}));
  CommandResult env = RunShell(
      testing::BinDir() + "/stepfault blackbox explore --quiet --spec " + spec + " --out env",
      {dir_,
       {{"GTEST_SHARD_INDEX", "0"}, {"GTEST_TOTAL_SHARDS", "2"}},
       600 * test_env::TimeoutScale()});
  Stepfault("blackbox explore --quiet --spec " + spec + " --shard 1/2 --out flag");
  EXPECT_NE(env.err.find("shard 1/2 (from GTEST_SHARD_INDEX)"), std::string::npos) << env.err;
  EXPECT_NE(env.out.find("shard 1/2 (from GTEST_SHARD_INDEX): this report holds only"),
            std::string::npos)
      << env.out;
  EXPECT_EQ(Json::parse(ReadAll(dir_ + "/env/report.json"))["scenarios"],
            Json::parse(ReadAll(dir_ + "/flag/report.json"))["scenarios"]);
}

// Issue 30: `blackbox init` writes a spec from the commands a user already runs, which explore
// takes as it is (here it finds the in-place save's bug, as the hand-written example does); it
// never replaces a file and refuses a bad spec without writing anything.
TEST_F(BlackboxCliTest, InitWritesASpecExploreRunsAndNeverReplacesAFile) {
  CommandResult init = Stepfault(
      "blackbox init --dir data --setup 'stepfault-example-json-state init data/state.json' "
      "--run 'stepfault-example-json-state save-inplace $STEPFAULT_DIR/state.json 2' "
      "--check 'stepfault-example-json-state check $STEPFAULT_DIR/state.json $STEPFAULT_ACKED' "
      "--out mine.json");
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  EXPECT_NE(init.out.find("Next:"), std::string::npos) << init.out;
  const Json spec = Json::parse(ReadAll(dir_ + "/mine.json"));
  EXPECT_EQ(spec["name"], "mine");
  EXPECT_EQ(spec["run"].size(), 1u);
  CommandResult explored = Stepfault("blackbox explore --quiet --spec mine.json --out out");
  EXPECT_EQ(explored.exit_code, 1) << explored.out << explored.err;
  EXPECT_NE(explored.out.find("minimal plan 'crash@fs.write[state.json]#1'"), std::string::npos)
      << explored.out;
  const std::string before = ReadAll(dir_ + "/mine.json");
  CommandResult again = Stepfault("blackbox init --dir data --run true --out mine.json");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("exists"), std::string::npos) << again.err;
  EXPECT_EQ(ReadAll(dir_ + "/mine.json"), before);
  CommandResult bad = Stepfault("blackbox init --dir /etc --run true --out bad.json");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("outside the working directory"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/bad.json"));
}

// Issue 13: depth-2 shards merge into the unsharded report. Before, each shard wrote its own count
// of depth-2 pairs into the description (merge refused: the descriptions differ), a state spanning
// both halves ran in both shards, and the depth-2 cap depended on the shard's share of states.
// Now a state runs in the shard of its first cell, depth-2 pairs are report rows ("recover:...")
// that merge like any cell, and the cap derives from figures every shard computes alike.
TEST_F(BlackboxCliTest, DepthTwoShardsMergeIntoTheUnshardedReport) {
  for (const char* example : {"json-state/atomic.json", "json-state/inplace.json"}) {
    const std::string spec = Example(example);
    const std::string tag = std::string(example).substr(11, 6);
    const int all =
        Stepfault("blackbox explore --spec " + spec + " --depth 2 --out all-" + tag).exit_code;
    ASSERT_TRUE(all == 0 || all == 1) << example;
    Stepfault("blackbox explore --spec " + spec + " --depth 2 --shard 1/2 --out s1-" + tag);
    Stepfault("blackbox explore --spec " + spec + " --depth 2 --shard 2/2 --out s2-" + tag);
    CommandResult merged = Stepfault("report merge s1-" + tag + "/report.json s2-" + tag +
                                     "/report.json --out merged-" + tag);
    ASSERT_EQ(merged.exit_code, all) << merged.out << merged.err;
    Json a = Json::parse(ReadAll(dir_ + "/all-" + tag + "/report.json"));
    Json m = Json::parse(ReadAll(dir_ + "/merged-" + tag + "/report.json"));
    EXPECT_EQ(a["scenarios"], m["scenarios"]) << example;
    EXPECT_EQ(a["violations"], m["violations"]) << example;
    EXPECT_EQ(a["runs"], m["runs"]) << example;
    EXPECT_EQ(a["lives"], m["lives"]) << example;
  }
}

// Issue 13: ioerror cells run live, and identical resulting directories (digest plus what the
// program acknowledged) are recovered and checked once, with the ratio printed like the crash
// states'. Before, every ioerror cell was recovered and checked, and no figure was printed. The
// representatives are chosen after every live run, in cell order, so --jobs changes nothing.
TEST_F(BlackboxCliTest, IOErrorCellsWithIdenticalResultingStatesAreCheckedOnce) {
  const std::string spec = Example("json-state/atomic.json");
  CommandResult one = Stepfault("blackbox explore --spec " + spec + " --actions ioerror --out one");
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  long long cells = 0, distinct = 0;
  const size_t at = one.out.find(" ioerror cells (run live) -> ");
  ASSERT_NE(at, std::string::npos) << one.out;
  const size_t line = one.out.rfind('\n', at) + 1;
  ASSERT_EQ(std::sscanf(one.out.c_str() + line, "%lld ioerror cells (run live) -> %lld", &cells,
                        &distinct),
            2)
      << one.out;
  EXPECT_GT(cells, 0);
  EXPECT_LT(distinct, cells) << "the atomic save leaves identical directories after some failures";
  Json a = Json::parse(ReadAll(dir_ + "/one/report.json"));
  int ran = 0;
  for (const Json& c : a["scenarios"][0]["cells"]) {
    if (c["action"] != "ioerror" || c["outcome"] == "n/a") continue;
    EXPECT_EQ(c["outcome"], "pass") << c.dump();
    ran += 1;
  }
  EXPECT_EQ(ran, cells);
  CommandResult two =
      Stepfault("blackbox explore --spec " + spec + " --actions ioerror --jobs 2 --out two");
  ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
  EXPECT_EQ(a, Json::parse(ReadAll(dir_ + "/two/report.json")));
}

// Issue 13: a bug that needs two faults is shrunk to a minimal plan. The example saves atomically
// (every single fault passes) but its recovery rewrites state.json in place, so a crash inside
// the recovery after a first crash leaves it empty. The explorer prints, per violated invariant,
// the smallest violating plan (fewer faults, earlier windows, simpler actions) with its replay
// command, the same with --jobs 2, and the printed command reproduces the violation.
TEST_F(BlackboxCliTest, ATwoFaultBugIsShrunkToAMinimalReplayablePlan) {
  const std::string spec = Example("json-state/recover-inplace.json");
  ASSERT_EQ(Stepfault("blackbox explore --spec " + spec + " --actions crash --out one").exit_code,
            0);
  CommandResult two =
      Stepfault("blackbox explore --spec " + spec + " --actions crash --depth 2 --out two");
  ASSERT_EQ(two.exit_code, 1) << two.out << two.err;
  const size_t at = two.out.find("shrunk: INV-BB-CHECK (");
  ASSERT_NE(at, std::string::npos) << two.out;
  const size_t needs = two.out.find("needs 2 fault(s); minimal plan '", at);
  ASSERT_LT(needs, two.out.find('\n', at)) << two.out;  // on the same line
  const size_t from = two.out.find('\'', at) + 1;
  const std::string plan = two.out.substr(from, two.out.find('\'', from) - from);
  // The first fault is at the earliest fault-free window, a crash (the simplest action).
  Json report = Json::parse(ReadAll(dir_ + "/two/report.json"));
  const std::string first = report["scenarios"][0]["windows"][0]["id"].get<std::string>();
  EXPECT_EQ(plan.rfind("crash@" + first + ";crash@", 0), 0u) << plan;
  EXPECT_GT(report["violations"].size(), 1u) << "the shrinker chose among several plans";
  CommandResult jobs = Stepfault("blackbox explore --spec " + spec +
                                 " --actions crash --depth 2 --jobs 2 --out jobs");
  EXPECT_NE(jobs.out.find("minimal plan '" + plan + "'"), std::string::npos) << jobs.out;
  const size_t replay_at = two.out.find("  replay: stepfault ", at);
  ASSERT_NE(replay_at, std::string::npos);
  const std::string replay =
      two.out.substr(replay_at + 10, two.out.find('\n', replay_at) - replay_at - 10);
  CommandResult replayed = Stepfault(replay.substr(std::string("stepfault ").size()));
  EXPECT_EQ(replayed.exit_code, 1) << replayed.out << replayed.err;
  EXPECT_NE(replayed.out.find("VIOLATION INV-BB-CHECK"), std::string::npos) << replayed.out;
}

TEST_F(BlackboxCliTest, SqliteCliKeepsCommitsWithExtraAndLosesTheLastOneWithFull) {
  const std::string actions = testing::LongRun() ? "" : " --actions powerloss";
  CommandResult extra =
      Stepfault("blackbox explore --spec " + Example("real/sqlite3/rollback-extra.json") + actions +
                " --jobs 2 --out extra");
  EXPECT_EQ(extra.exit_code, 0) << extra.out << extra.err;
  CommandResult full =
      Stepfault("blackbox explore --spec " + Example("real/sqlite3/rollback-full.json") + actions +
                " --jobs 2 --out full");
  ASSERT_EQ(full.exit_code, 1) << full.out << full.err;
  Json report = Json::parse(ReadAll(dir_ + "/full/report.json"));
  EXPECT_TRUE(
      HasViolation(report, "powerloss@proc.exit[cmd3]#1", "commit 3 was acknowledged but is lost"))
      << report["violations"].dump(2);
  // A spec with SQL checks and a program that leaves a SQLite database: those invariants apply
  // (issue 30; the json-state example is the other side, where they do not).
  const Json extra_report = Json::parse(ReadAll(dir_ + "/extra/report.json"));
  EXPECT_EQ(
      Invariants(extra_report),
      std::vector<std::string>({"INV-BB-CHECK", "INV-BB-SQL", "INV-BB-INTEGRITY", "INV-LIVENESS"}));
}

TEST_F(BlackboxCliTest, SqliteCliWithSynchronousOffLosesCommittedTransactions) {
  const std::string actions = testing::LongRun() ? "" : " --actions powerloss";
  CommandResult off = Stepfault("blackbox explore --spec " + Example("real/sqlite3/sync-off.json") +
                                actions + " --jobs 2 --out off");
  ASSERT_EQ(off.exit_code, 1) << off.out << off.err;
  Json report = Json::parse(ReadAll(dir_ + "/off/report.json"));
  EXPECT_TRUE(
      HasViolation(report, "powerloss@proc.exit[cmd1]#1", "commit 1 was acknowledged but is lost"))
      << report["violations"].dump(2);
  STEPFAULT_SKIP_UNLESS_LONG();  // the WAL + synchronous=FULL sweep
  CommandResult wal = Stepfault("blackbox explore --spec " + Example("real/sqlite3/wal-full.json") +
                                " --jobs 2 --out wal");
  EXPECT_EQ(wal.exit_code, 0) << wal.out << wal.err;
  EXPECT_NE(wal.out.find("app.db-shm is memory-mapped"), std::string::npos) << wal.out;
}

}  // namespace
}  // namespace stepfault::properties::blackbox
