// Goal: the command line of the schedule explorer works end to end: `stepfault replay
// interactive-flow --plan FAULT --schedule S` replays a printed counterexample exactly (violation,
// exit 1) and the same schedule without the hazard is clean (exit 0); bad input exits 2 saying
// what was wrong; a plan of several faults (crash, time:advance, power loss) replays
// deterministically; `stepfault schedules explore` reports schedules, states and context switches.
// Method: run the built binary and read its output and exit code.
#include <gtest/gtest.h>

#include "tools/cli/cli_test_util.h"

namespace stepfault::cli {
namespace {

using testing::Stepfault;

constexpr char kKill[] =
    "replay interactive-flow --plan none --schedule a142b5c71d95 "
    "--hazard host:flow-duplicate-response-resumes-twice";

TEST(SchedulesCli, ReplayOfAPrintedCounterexampleShowsTheViolationAndExitsOne) {
  auto r = Stepfault(kKill);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("VIOLATION INV-FLOW-NO-DOUBLE-RESUME"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("schedule a142b5c71d95\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("world "), std::string::npos) << r.out;
  EXPECT_EQ(Stepfault(kKill).out, r.out) << "a replay (and the world it leaves) is deterministic";
  auto strict = Stepfault("replay interactive-flow --plan none --schedule a142b5c71d95");
  EXPECT_EQ(strict.exit_code, 0) << strict.out;
  EXPECT_EQ(strict.out.find("VIOLATION"), std::string::npos) << strict.out;
}

TEST(SchedulesCli, BadFaultScheduleOrHazardExitsTwoSayingWhatIsWrong) {
  auto plan = Stepfault("replay interactive-flow --plan crash:q@1 --schedule a");
  EXPECT_EQ(plan.exit_code, 2);
  EXPECT_NE(plan.out.find("the actor is a letter a-e"), std::string::npos) << plan.out;
  auto schedule = Stepfault("replay interactive-flow --plan none --schedule a3B");
  EXPECT_EQ(schedule.exit_code, 2);
  EXPECT_NE(schedule.out.find("bad --schedule"), std::string::npos) << schedule.out;
  auto hazard = Stepfault("schedules explore --hazard host:nope");
  EXPECT_EQ(hazard.exit_code, 2);
  EXPECT_NE(hazard.out.find("unknown interactive-flow hazard"), std::string::npos) << hazard.out;
  auto elsewhere = Stepfault("replay approval --plan none --schedule a3");
  EXPECT_EQ(elsewhere.exit_code, 2) << elsewhere.out;
  EXPECT_NE(elsewhere.out.find("--schedule applies only to interactive-flow"), std::string::npos)
      << elsewhere.out;
}

TEST(SchedulesCli, ReplayTakesAPlanOfSeveralFaultsAndRejectsABadOne) {
  auto r =
      Stepfault("replay interactive-flow --plan crash:e@1,time:c@1,powerloss:a@9 --schedule a3");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("fault crash:e@1,time:c@1,powerloss:a@9, run "), std::string::npos) << r.out;
  EXPECT_EQ(Stepfault("replay interactive-flow --plan crash:e@1,time:c@1,powerloss:a@9 --schedule "
                      "a3")
                .out,
            r.out);
  auto bad = Stepfault("replay interactive-flow --plan crash:a@1,melt:b@2 --schedule a3");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("bad --plan"), std::string::npos) << bad.out;
}

TEST(SchedulesCli, ExploreReportsSchedulesStatesAndContextSwitches) {
  auto r = Stepfault("schedules explore --schedules 6 --seed 3");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("schedules explored   6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("distinct states"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("context switches"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("violations           0"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace stepfault::cli
