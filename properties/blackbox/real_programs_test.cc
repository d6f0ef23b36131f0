// Goal: the catalogue of real programs (examples/blackbox/real/, docs/findings.md) gives, from a
// fresh recording, the findings the table states: each spec explored with crash and power loss at
// depth 1 (the bounded run; with STEPFAULT_LONG=1 every action and depth 2) ends with the verdict
// and the failure class its row names, and the minimal plan the command prints replays to the same
// failure. A change in the harness that loses a finding, or invents one, fails here.
// Method: `stepfault blackbox explore` and `replay` on each spec; git, redis-server and lmdb-utils
// must be installed (tools/test installs them; STEPFAULT_ALLOW_MISSING_REAL_PROGRAMS=1 skips).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <ostream>
#include <string>

#include "properties/blackbox/blackbox_test_util.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using testing::Example;

struct RealProgram {
  const char* spec;     // under examples/blackbox/real/
  const char* program;  // what must be installed
  int exit_code;        // of the bounded exploration
  const char* failure;  // the failure class of its shrunk plan ("" when it passes)
  const char* holds;    // the persistence models its minimal plan holds under
  // The program's own timing decides what it writes (redis' once-a-second background fsync): a
  // run that the harness finds NONDETERMINISTIC (the replay of the recording differs) is run once
  // more, and the second must be clean. A loaded machine stretches the run past the fsync.
  bool timing_dependent = false;
  friend void PrintTo(const RealProgram& p, std::ostream* os) { *os << p.spec; }
};

class RealProgramsTest : public BlackboxCliTest,
                         public ::testing::WithParamInterface<RealProgram> {};

TEST_P(RealProgramsTest, FindsWhatTheFindingsTableSaysAndItsMinimalPlanReplays) {
  const RealProgram& p = GetParam();
  STEPFAULT_REQUIRE_PROGRAM(
      RunShell(std::string("command -v ") + p.program, {"", {}, 30}).exit_code == 0, p.program,
      "STEPFAULT_ALLOW_MISSING_REAL_PROGRAMS");
  const std::string spec = Example(std::string("real/") + p.spec);
  const std::string actions = test_env::LongRun()
                                  ? " --depth 2 --actions crash,powerloss,reorder,ioerror"
                                  : " --actions crash,powerloss";
  const std::string explore = "blackbox explore --quiet --jobs 2 --spec " + spec + actions;
  CommandResult r = Stepfault(explore + " --out ex");
  if (p.timing_dependent && r.out.find("NONDETERMINISTIC") != std::string::npos) {
    std::printf("%s: the program's timing made the first run nondeterministic; running again\n",
                p.spec);
    r = Stepfault(explore + " --out ex-again");
  }
  ASSERT_EQ(r.exit_code, p.exit_code) << r.out << r.err;
  EXPECT_EQ(r.out.find("INCOMPLETE"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("NONDETERMINISTIC"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
  if (p.exit_code == 0) return;
  const std::string shrunk = std::string("(") + p.failure + ") needs ";
  const size_t at = r.out.find(shrunk);
  ASSERT_NE(at, std::string::npos) << shrunk << "\n" << r.out;
  const std::string prefix = "  replay: stepfault ";
  const size_t replay = r.out.find(prefix, at);
  ASSERT_NE(replay, std::string::npos) << r.out;
  const size_t from = replay + prefix.size();
  const std::string command = r.out.substr(from, r.out.find('\n', from) - from);
  const size_t holds = r.out.find('\n', from) + 1;  // the line after the replay command
  EXPECT_EQ(r.out.substr(holds, r.out.find('\n', holds) - holds),
            std::string("  holds under: ") + p.holds)
      << r.out;
  CommandResult again = Stepfault(command);
  EXPECT_EQ(again.exit_code, 1) << command << "\n" << again.out << again.err;
}

INSTANTIATE_TEST_SUITE_P(
    Catalogue, RealProgramsTest,
    ::testing::Values(
        RealProgram{"git/default.json", "git", 1,
                    "check `sh $STEPFAULT_SPEC_DIR/check.sh` failed (exit #): acknowledged "
                    "commit # is lost",
                    "posix, ext4-ordered, xfs, btrfs"},
        RealProgram{"git/fsync-all.json", "git", 1,
                    "check `sh $STEPFAULT_SPEC_DIR/check.sh` failed (exit #): acknowledged "
                    "commit # is lost",
                    "posix, ext4-ordered, xfs, btrfs"},
        RealProgram{"redis/aof-always.json", "redis-server", 1,
                    "check `sh $STEPFAULT_SPEC_DIR/check.sh` failed (exit #): acknowledged SET "
                    "of key# is lost (key#=)",
                    "posix only"},
        RealProgram{"redis/aof-everysec.json", "redis-server", 1,
                    "check `sh $STEPFAULT_SPEC_DIR/check.sh` failed (exit #): acknowledged SET "
                    "of key# is lost (key#=)",
                    "posix, ext4-ordered, xfs, btrfs", /*timing_dependent=*/true},
        RealProgram{"lmdb/load.json", "mdb_load", 1,
                    "check `sh $STEPFAULT_SPEC_DIR/check.sh` failed (exit #): mdb_stat cannot "
                    "open the environment",
                    "posix only"},
        RealProgram{"sqlite3/wal-normal.json", "sqlite3", 0, "", ""}),
    [](const ::testing::TestParamInfo<RealProgram>& info) {
      std::string name = info.param.spec;
      name = name.substr(0, name.find(".json"));
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

}  // namespace
}  // namespace stepfault::properties::blackbox
