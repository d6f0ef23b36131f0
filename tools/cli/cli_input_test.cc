// Goal: every bad input to the command line is a clear error with the documented exit code
// (scenarios/exit_codes.h), never a crash, a hang, a silent pass, or a change on disk (issue 16).
// Each test names the issue item it proves; each failed before its fix.
// Method: run build/bin/stepfault in separate processes in scratch directories; for "changes
// nothing" compare a snapshot of the directory tree (every path and its bytes) before and after.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "engine/env.h"
#include "tools/cli/cli_test_util.h"

namespace stepfault::cli {
namespace {
namespace fs = std::filesystem;

using testing::ProcessRun;
using testing::Stepfault;

std::string Scratch(const std::string& name) { return testing::Scratch("sf_in", name); }

// A file of the source tree (the tests run from the build directory).
std::string Source(const std::string& rel) {
  const char* root = std::getenv("STEPFAULT_SOURCE_DIR");
  return (fs::path(root != nullptr ? root : ".") / rel).string();
}

// Every path under `dir` with its bytes ("<missing>" when dir does not exist).
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> tree;
  if (!fs::exists(dir)) return {{"", "<missing>"}};
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string bytes = "<dir>";
    if (e.is_regular_file()) {
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      bytes = ss.str();
    }
    tree[fs::relative(e.path(), dir).string()] = bytes;
  }
  return tree;
}

const char* kComment = "\"External business decision.\"";

// Item 1: unknown, unreachable or unfired fault points are errors, never a pass.
TEST(InputBoundaryTest, PlansThatCannotFireAreErrorsNotPasses) {
  ProcessRun typo = Stepfault("replay approval --plan 'crash@effect.commit.afterr#1'");
  EXPECT_EQ(typo.exit_code, 2) << typo.out;
  EXPECT_NE(typo.out.find("did you mean 'effect.commit.after'"), std::string::npos) << typo.out;
  ProcessRun unreached = Stepfault("replay fan-in --plan 'crash@receipt.publish.before#1'");
  EXPECT_EQ(unreached.exit_code, 2) << unreached.out;
  EXPECT_NE(unreached.out.find("never reaches"), std::string::npos) << unreached.out;
  ProcessRun unfired = Stepfault("replay approval --plan 'crash@effect.commit.after#5'");
  EXPECT_EQ(unfired.exit_code, 2) << unfired.out;
  EXPECT_NE(unfired.out.find("never fired"), std::string::npos) << unfired.out;

  const std::string dir = Scratch("crash_at");
  EXPECT_EQ(Stepfault("approval start --dir " + dir + " --crash-at no.such.point").exit_code, 2);
  EXPECT_FALSE(fs::exists(dir)) << "a rejected --crash-at created the directory";
  ProcessRun db = Stepfault("approval start --dir " + dir + " --crash-at 'fs.fsync[db]#1'");
  EXPECT_EQ(db.exit_code, 1) << db.out;
  EXPECT_NE(db.out.find("never fired"), std::string::npos) << db.out;
}

// Issue 30 (one grammar of flags): replay names its scenario with --scenario, as explore and check
// do; the older positional spelling still works, and the two at once must agree.
TEST(InputBoundaryTest, ReplayTakesScenarioLikeExploreAndRefusesTwoDifferentOnes) {
  ProcessRun flag = Stepfault("replay --scenario fan-in --plan ''");
  EXPECT_EQ(flag.exit_code, 0) << flag.out;
  EXPECT_NE(flag.out.find("completed after"), std::string::npos) << flag.out;
  ProcessRun positional = Stepfault("replay fan-in --plan ''");
  EXPECT_EQ(positional.exit_code, 0) << positional.out;
  EXPECT_EQ(positional.out, flag.out);
  EXPECT_EQ(Stepfault("replay fan-in --scenario fan-in --plan ''").exit_code, 0);
  ProcessRun two = Stepfault("replay approval --scenario fan-in --plan ''");
  EXPECT_EQ(two.exit_code, 2) << two.out;
  EXPECT_NE(two.out.find("two scenarios given"), std::string::npos) << two.out;
  ProcessRun none = Stepfault("replay --plan ''");
  EXPECT_EQ(none.exit_code, 2) << none.out;
  EXPECT_NE(none.out.find("--scenario NAME"), std::string::npos) << none.out;
}

// Item 9: numbers are parsed strictly: no sign, no wrap, no suffix.
TEST(InputBoundaryTest, NumbersAreParsedStrictly) {
  for (const char* args : {"replay approval --plan none --seed -1",
                           "replay approval --plan none --seed 18446744073709551616",
                           "replay approval --plan none --seed 12x",
                           "explore --scenario fan-in --shard 1/2x --out /tmp/sf_never",
                           "explore --scenario fan-in --shard 1/99999999999 --out /tmp/sf_never",
                           "explore --scenario fan-in --depth2-max-pairs -5 --out /tmp/sf_never",
                           "check --scenario fan-in --cases 0 --out /tmp/sf_never"}) {
    ProcessRun r = Stepfault(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists("/tmp/sf_never"));
  EXPECT_EQ(Stepfault("replay approval --plan none --seed 18446744073709551615").exit_code, 0);
}

// Item 15: --version, and the exit codes in --help.
TEST(InputBoundaryTest, VersionAndHelpNameTheExitCodes) {
  ProcessRun v = Stepfault("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("stepfault ", 0), 0u) << v.out;
  ProcessRun help = Stepfault("--help");
  EXPECT_NE(help.out.find("4 internal error"), std::string::npos) << help.out;
}

// Items 4 and 11: a rejected command leaves the directory byte-identical (or uncreated); status
// is read-only; resume on an empty directory creates nothing.
TEST(InputBoundaryTest, RejectedAndReadOnlyCommandsChangeNothingOnDisk) {
  const std::string fresh = Scratch("fresh");
  EXPECT_EQ(Stepfault("approval start --dir " + fresh + " --draft ''").exit_code, 2);
  EXPECT_EQ(
      Stepfault("approval start --dir " + fresh + " --draft \"$(printf 'a\\377b')\"").exit_code, 2);
  EXPECT_FALSE(fs::exists(fresh)) << "a rejected start created the directory";

  const std::string empty = Scratch("empty");
  fs::create_directories(empty);
  EXPECT_EQ(Stepfault("approval resume --dir " + empty + " approve " + kComment).exit_code, 2);
  EXPECT_TRUE(fs::is_empty(empty)) << "resume on an empty directory wrote a file";
  EXPECT_EQ(Stepfault("approval status --dir " + empty).exit_code, 2);
  EXPECT_TRUE(fs::is_empty(empty));

  const std::string dir = Scratch("started");
  ASSERT_EQ(Stepfault("approval start --dir " + dir).exit_code, 0);
  const auto before = Tree(dir);
  EXPECT_EQ(Stepfault("approval status --dir " + dir).exit_code, 0);
  EXPECT_EQ(Stepfault("approval start --dir " + dir).exit_code, 2);
  EXPECT_EQ(Stepfault("approval resume --dir " + dir + " maybe " + kComment).exit_code, 2);
  EXPECT_EQ(Stepfault("approval resume --dir " + dir + " approve " + kComment + " --crash-at x.y")
                .exit_code,
            2);
  EXPECT_EQ(Tree(dir), before) << "a rejected or read-only command changed the directory";

  fs::remove(dir + "/business.db");
  const auto damaged = Tree(dir);
  ProcessRun status = Stepfault("approval status --dir " + dir);
  EXPECT_EQ(status.exit_code, 2) << status.out;
  EXPECT_NE(status.out.find("business.db is missing"), std::string::npos) << status.out;
  EXPECT_EQ(Tree(dir), damaged) << "status re-created business.db";
}

// Item 13: one rule for damage (exit 2), and an interrupted start is named as such.
TEST(InputBoundaryTest, DamageHasOneExitCodeAndAnInterruptedStartIsNamed) {
  const std::string dir = Scratch("interrupted");
  ProcessRun killed =
      Stepfault("approval start --dir " + dir + " --crash-at receipt.publish.before");
  ASSERT_EQ(killed.exit_code, -9) << killed.out;
  ProcessRun status = Stepfault("approval status --dir " + dir);
  EXPECT_EQ(status.exit_code, 2) << status.out;
  EXPECT_NE(status.out.find("interrupted"), std::string::npos) << status.out;

  const std::string db = Scratch("baddb");
  ASSERT_EQ(Stepfault("approval start --dir " + db).exit_code, 0);
  std::ofstream(db + "/business.db", std::ios::trunc) << std::string(4096, 'x');
  EXPECT_EQ(Stepfault("approval status --dir " + db).exit_code, 2);
  EXPECT_EQ(Stepfault("approval resume --dir " + db + " approve " + kComment).exit_code, 2);

  const std::string receipt = Scratch("badreceipt");
  ASSERT_EQ(Stepfault("approval start --dir " + receipt).exit_code, 0);
  std::ofstream(receipt + "/waiting.json", std::ios::trunc) << "{";
  EXPECT_EQ(Stepfault("approval resume --dir " + receipt + " approve " + kComment).exit_code, 2);
}

// Item 12: an exact replay of a finished `approval resume` writes nothing; before the fix every
// replay committed a new branch of two checkpoints under the receipt's that was never pruned.
TEST(InputBoundaryTest, AnExactReplayOfAFinishedResumeWritesNothing) {
  for (const char* choice : {"approve", "reject"}) {
    const std::string dir = Scratch(std::string("replay_") + choice);
    ASSERT_EQ(Stepfault("approval start --dir " + dir).exit_code, 0);
    ProcessRun first = Stepfault("approval resume --dir " + dir + " " + choice + " " + kComment);
    ASSERT_EQ(first.exit_code, 0) << first.out;
    const auto finished = Tree(dir);
    for (int i = 0; i < 2; ++i) {
      ProcessRun replay = Stepfault("approval resume --dir " + dir + " " + choice + " " + kComment);
      EXPECT_EQ(replay.exit_code, 0) << replay.out;
      EXPECT_EQ(replay.out, first.out) << "a replay must report what the first resume reported";
    }
    EXPECT_EQ(Tree(dir), finished) << "a replay of a finished resume changed the directory";
    fs::remove_all(dir);
  }
}

// Dies (SIGKILL) inside a write transaction big enough to spill SQLite's page cache: the journal
// is synced and the database file changed, so `db` is left with a hot journal.
void CrashInsideATransaction(const std::string& db) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    sqlite3* h = nullptr;
    if (sqlite3_open(db.c_str(), &h) != SQLITE_OK) ::_exit(3);
    const char* sql =
        "PRAGMA cache_size=1; BEGIN; CREATE TABLE pad(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION "
        "ALL SELECT i+1 FROM c WHERE i<200) INSERT INTO pad SELECT zeroblob(2000) FROM c;";
    if (sqlite3_exec(h, sql, nullptr, nullptr, nullptr) != SQLITE_OK) ::_exit(4);
    ::kill(::getpid(), SIGKILL);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child did not die inside its transaction";
}

// `status` on a directory whose database holds a crashed transaction says so and to run
// `resume`, exit 2, and stays read-only; before the fix it failed with "attempt to write a
// readonly database" (exit 1).
TEST(InputBoundaryTest, StatusNamesAHotJournalAndStaysReadOnly) {
  const std::string dir = Scratch("hotjournal");
  ASSERT_EQ(Stepfault("approval start --dir " + dir).exit_code, 0);
  CrashInsideATransaction(dir + "/business.db");
  ASSERT_TRUE(fs::exists(dir + "/business.db-journal"));
  const auto before = Tree(dir);
  ProcessRun status = Stepfault("approval status --dir " + dir);
  EXPECT_EQ(status.exit_code, 2) << status.out;
  EXPECT_NE(status.out.find("hot journal"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("approval resume"), std::string::npos) << status.out;
  EXPECT_EQ(Tree(dir), before) << "a read-only status changed the directory";
  // The advice works: resume rolls the transaction back and finishes.
  EXPECT_EQ(Stepfault("approval resume --dir " + dir + " approve " + kComment).exit_code, 0);
  ProcessRun after = Stepfault("approval status --dir " + dir);
  EXPECT_EQ(after.exit_code, 0) << after.out;
  EXPECT_NE(after.out.find("Status: Completed"), std::string::npos) << after.out;
  EXPECT_FALSE(fs::exists(dir + "/business.db-journal"));
  fs::remove_all(dir);
}

// Item 7: --out is checked before any work.
TEST(InputBoundaryTest, ABadOutIsRejectedBeforeTheRun) {
  const std::string base = Scratch("out");
  fs::create_directories(base);
  std::ofstream(base + "/afile") << "x";
  ProcessRun r = Stepfault("explore --scenario fan-in --quiet --out " + base + "/afile");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is not a directory"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("coverage"), std::string::npos) << "the run happened before the check";
}

// Item 3: --params is validated against the scenario's declaration, merged over the defaults, and
// listed by `stepfault list params`.
TEST(InputBoundaryTest, ParamsAreValidatedMergedAndListed) {
  struct Case {
    const char* params;
    const char* expected;
  };
  for (const Case& c :
       {Case{"{\"widht\":4}", "did you mean 'width'"},
        Case{"{\"width\":100000000}", "out of range"}, Case{"{\"width\":0}", "out of range"},
        Case{"{\"width\":\"x\"}", "expected integer"}, Case{"{\"width\":5", "line 1, column"}}) {
    ProcessRun r = Stepfault("replay fan-in --plan none --params '" + std::string(c.params) + "'");
    EXPECT_EQ(r.exit_code, 2) << c.params << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expected), std::string::npos) << c.params << "\n" << r.out;
  }
  EXPECT_EQ(Stepfault("replay fan-in --plan none --params '{\"width\":5}'").exit_code, 0);
  ProcessRun list = Stepfault("list params");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("width: integer 1..64, default 3"), std::string::npos) << list.out;
}

// Issue 30 defect 1: a hazard the scenario does not declare changes nothing, so a run with it
// passed and a CI job proving its gate went green; it is exit 2 naming the scenario's hazards, in
// explore, check and replay alike.
TEST(InputBoundaryTest, AHazardTheScenarioDoesNotHaveIsRejectedNamingItsHazards) {
  const std::string out = Scratch("foreign_hazard");
  for (const std::string& cmd :
       {std::string("explore --scenario fan-in --hazard host:receipt-in-place --depth 1 --store "
                    "file --quiet --out ") +
            out,
        "check --scenario fan-in --hazard host:receipt-in-place --cases 1 --out " + out,
        std::string("replay fan-in --plan none --hazard receipt-in-place")}) {
    ProcessRun r = Stepfault(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("'fan-in' has no hazard 'host:receipt-in-place'"), std::string::npos)
        << cmd << "\n"
        << r.out;
    // ... and names the host hazards it does have.
    EXPECT_NE(r.out.find("its host hazards are: host:effect-without-unique-key"), std::string::npos)
        << r.out;
  }
  EXPECT_FALSE(fs::exists(out));
  // The scenario that declares it takes it.
  EXPECT_NE(Stepfault("replay approval --plan none --hazard host:receipt-in-place").exit_code, 2);
}

// Issue 30 defect 2 and "numbers decimal everywhere": `--min-coverage nan` switched the gate off
// and wrote "min_coverage_pct": null; every floating-point option is finite and in range, every
// integer decimal, in explore and blackbox explore; 1e30 for an integer says "too large".
TEST(InputBoundaryTest, FloatingPointAndIntegerOptionsAreFiniteDecimalAndInRange) {
  const std::string out = Scratch("floats");
  const std::string spec = Source("examples/blackbox/json-state/atomic.json");
  for (const std::string& prefix :
       {std::string("explore --scenario fan-in --depth 1 --store file --quiet"),
        "blackbox explore --spec " + spec}) {
    for (const char* bad : {"nan", "-nan", "inf", "-1", "100.5", "1e3", "0x10", "50%", ""}) {
      const std::string cmd = prefix + " --min-coverage '" + bad + "' --out " + out;
      ProcessRun r = Stepfault(cmd);
      EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
      EXPECT_NE(r.out.find("--min-coverage"), std::string::npos) << cmd << "\n" << r.out;
    }
  }
  for (const char* bad : {"--jobs 0x10", "--depth 0x1", "--jobs 1e30"}) {
    const std::string cmd = "blackbox explore --spec " + spec + " " + bad + " --out " + out;
    ProcessRun r = Stepfault(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
  }
  ProcessRun huge = Stepfault("explore --scenario fan-in --jobs 1e30 --out " + out);
  EXPECT_EQ(huge.exit_code, 2) << huge.out;
  EXPECT_NE(huge.out.find("too large"), std::string::npos) << huge.out;
  EXPECT_FALSE(fs::exists(out));
}

// Issue 30 defect 8: as root, access(2) says every directory is writable, so `--out /sys/kernel`
// passed the up-front check, ran everything and failed to write; the check creates a real file.
TEST(InputBoundaryTest, AnOutWhereNoFileCanBeCreatedIsRejectedUpFront) {
  for (const char* dir : {"/sys/kernel", "/proc/self"}) {
    ProcessRun r =
        Stepfault(std::string("explore --scenario fan-in --depth 1 --quiet --out ") + dir);
    EXPECT_EQ(r.exit_code, 2) << dir << "\n" << r.out;
    // /proc/self is refused by the writability check already; /sys/kernel passes it as root and
    // only the probe file finds it out.
    if (std::string(dir) == "/sys/kernel") {
      EXPECT_NE(r.out.find("cannot create a file"), std::string::npos) << dir << "\n" << r.out;
    }
    EXPECT_EQ(r.out.find("coverage"), std::string::npos) << "the run happened before the check";
  }
  // A writable directory keeps nothing of the check.
  const std::string ok = Scratch("probe");
  fs::create_directories(ok);
  ProcessRun r = Stepfault("report render no-such.json --out " + ok);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(fs::is_empty(ok)) << "the --out check left a file behind";
}

// Issue 30 defect 7: a fault-free run that breaks an invariant was blamed on faults (thousands of
// violations, each group's smallest plan a fault). It is said first and the run stops: exit 1 with
// that one counterexample, or exit 2 when a JSON scenario's own `expect` is wrong.
TEST(InputBoundaryTest, AFailingFaultFreeRunIsSaidFirstAndStopsTheRun) {
  const std::string out = Scratch("fault_free");
  // maf-compat with the historical step-number restart (no longer in maf-compat since the
  // differential showed 1.28 continues the numbering): fan-in's fault-free run breaks INV-ANCESTRY.
  ProcessRun compat = Stepfault(
      "explore --scenario fan-in --profile maf-compat --hazard step-numbers-restart --depth 1 "
      "--store file --quiet --out " +
      out);
  EXPECT_EQ(compat.exit_code, 1) << compat.out;
  EXPECT_EQ(compat.out.rfind("stepfault: the fault-free run of", 0), 0u) << compat.out;
  EXPECT_NE(compat.out.find("plan: none (fault-free)"), std::string::npos) << compat.out;
  EXPECT_NE(compat.out.find("replay: stepfault replay --scenario fan-in --plan ''"),
            std::string::npos)
      << compat.out;
  const nlohmann::json report = nlohmann::json::parse(*PosixEnv()->ReadFile(out + "/report.json"));
  ASSERT_FALSE(report["violations"].empty());
  // The fault-free plan: empty (as `replay --plan ''` takes it) or "none".
  for (const auto& v : report["violations"]) {
    EXPECT_TRUE(v["plan"] == "" || v["plan"] == "none") << v.dump();
  }

  // A typo in `expect` (items 3 -> 4 in one expected output): the scenario is wrong, not the run.
  std::string text = *PosixEnv()->ReadFile(Source("scenarios/json/examples/fan-in-effects.json"));
  const std::string from = "\"body\": {\"effect_key\": \"audit-bill-o-42\", \"items\": 3";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               "\"body\": {\"effect_key\": \"audit-bill-o-42\", \"items\": 4");
  const std::string typo = Scratch("typo") + "/typo.json";
  fs::create_directories(fs::path(typo).parent_path());
  std::ofstream(typo) << text;
  ProcessRun wrong = Stepfault("explore --scenario " + typo + " --depth 1 --quiet --out " + out);
  EXPECT_EQ(wrong.exit_code, 2) << wrong.out;
  EXPECT_NE(wrong.out.find("expect"), std::string::npos) << wrong.out;
  EXPECT_EQ(wrong.out.find("VIOLATION"), std::string::npos) << wrong.out;
  fs::remove_all(out);
  fs::remove_all(fs::path(typo).parent_path());
}

}  // namespace
}  // namespace stepfault::cli
