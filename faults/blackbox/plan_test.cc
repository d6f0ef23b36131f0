// Goal: black-box plans parse and print back in the plan language, with path roles, and malformed
// text is rejected at the right 1-based position with the reason and the expected form.
// Method: a RapidCheck round trip over generated canonical plans (every action, path-like roles,
// one and two faults); hand-written texts pin the position and reason of each error.
#include "faults/blackbox/plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "faults/plan_syntax_test_util.h"

namespace stepfault::faults::blackbox {
namespace {

rc::Gen<std::string> StringOf(const std::string& alphabet, int min_size, int max_size) {
  return rc::gen::mapcat(rc::gen::inRange(min_size, max_size + 1), [alphabet](int n) {
    return rc::gen::container<std::string>(static_cast<size_t>(n), rc::gen::elementOf(alphabet));
  });
}

rc::Gen<Fault> CanonicalFault() {
  return rc::gen::apply(
      [](std::string action, std::string point, std::string role, int n) {
        return Fault{std::move(action), point + "[" + role + "]#" + std::to_string(n)};
      },
      rc::gen::elementOf(AllActions()),
      rc::gen::oneOf(
          rc::gen::element<std::string>("fs.write", "fs.rename", "fs.fsync", "proc.exit"),
          StringOf("az09._-", 1, 10)),
      // Paths: separators, dots, temp-name marks ("@1"), globs, spaces, '#' and '['.
      rc::gen::oneOf(rc::gen::element<std::string>("state.json", "data/app.db-journal", ".", "cmd1",
                                                   "a/tmp_obj_@1"),
                     StringOf("aZ09/._-@*#[ ", 1, 14)),
      rc::gen::oneOf(rc::gen::inRange(1, 20), rc::gen::inRange(1, 1'000'000'001)));
}

RC_GTEST_PROP(BlackboxPlan, EveryGeneratedCanonicalPlanRoundTripsThroughItsText, ()) {
  const Plan plan =
      *rc::gen::container<Plan>(*rc::gen::inRange<size_t>(1, kMaxPlanFaults + 1), CanonicalFault());
  const std::string text = PrintPlan(plan);
  Result<Plan> parsed = ParsePlan(text);
  RC_ASSERT(parsed.ok());
  RC_ASSERT(*parsed == plan);
  RC_ASSERT(PrintPlan(*parsed) == text);
}

TEST(BlackboxPlan, RoundTripsOneAndTwoFaultsWithPathRoles) {
  for (const char* text : {"powerloss@fs.rename[data/state.json.tmp]#3",
                           "crash@fs.write[app.db]#1;powerloss@proc.exit[recover1]#1",
                           "ioerror:ENOSPC@fs.fsync[app.db-journal]#2", "reorder@fs.write[.]#12"}) {
    Result<Plan> p = ParsePlan(text);
    ASSERT_TRUE(p.ok()) << text << ": " << p.status().ToString();
    EXPECT_EQ(PrintPlan(*p), text);
  }
  Result<Plan> eio = ParsePlan("ioerror:EIO@fs.write[x]#1");
  ASSERT_TRUE(eio.ok());
  EXPECT_EQ(PrintPlan(*eio), "ioerror@fs.write[x]#1");  // EIO is the default spelling
  EXPECT_EQ(eio->front(), (Fault{"ioerror", "fs.write[x]#1"}));
}

TEST(BlackboxPlan, ClassifiesTheActionsBuiltFromTheTrace) {
  for (const std::string& action : AllActions())
    EXPECT_EQ(IsCrashLike(action), action.rfind("ioerror", 0) != 0) << action;
}

TEST(BlackboxPlan, MalformedPlansAreRejectedWithPositionReasonAndExpectedForm) {
  const faults::testing::BadPlan cases[] = {
      {"",
       "position 1: expected an action (crash, powerloss, reorder, ioerror or ioerror:ENOSPC); "
       "a black-box plan is action@point[role]#N joined by ';', e.g. "
       "powerloss@fs.write[state.json]#1, found the end of the text"},
      {"fs.write[x]#1", "position 1: unknown action 'fs'; expected crash, powerloss, reorder"},
      {"melt@fs.write[x]#1", "position 1: unknown action 'melt'; expected crash, powerloss"},
      {"ioerror:EBADF@fs.write[x]#1", "position 1: unknown action 'ioerror:EBADF'"},
      {"crash fs.write[x]#1", "position 6: expected '@' and a window after the action 'crash'"},
      {"crash@[x]#1",
       "position 7: expected a point name ([a-z0-9._-]+, e.g. 'fs.write') after '@'"},
      {"crash@fs.write#1",
       "position 15: expected '[' and a role after the point 'fs.write' (a black-box window always "
       "has one"},
      {"crash@fs.write[]#1", "position 16: expected a role (the path"},
      {"crash@fs.write[x;y]#1", "position 17: expected ']' closing the role 'x', found ';'"},
      {"crash@fs.write[x]",
       "position 18: expected '#' and the window's occurrence after "
       "'fs.write[x]' (e.g. 'fs.write[x]#1'), found the end of the text"},
      {"crash@fs.write[x]#0", "position 19: window occurrence after '#' must be at least 1"},
      {"crash@fs.write[x]#01", "position 19: a window occurrence after '#' has no leading zeros"},
      {"crash@fs.write[x]#1x", "position 20: expected ';' starting the next fault, or the end"},
      {"crash@a[x]#1;", "position 14: expected an action"},
      {"crash@a[x]#1;bad", "position 14: unknown action 'bad'"},
      {"crash@a[x]#1;crash@b[y]#1;crash@c[z]#1", "position 27: at most 2 faults (depth 2"},
  };
  faults::testing::ExpectEachRejectedAsSaid(ParsePlan, cases);
}

}  // namespace
}  // namespace stepfault::faults::blackbox
