// Goal: black-box plans parse and print back in the plan grammar, with path roles, and bad text is
// rejected with the fault and the reason. Method: round-trip and error-message checks.
#include "properties/blackbox/bb_plan.h"

#include <gtest/gtest.h>

namespace stepfault::properties::blackbox {
namespace {

TEST(BlackboxPlanTest, RoundTripsOneAndTwoFaultsWithPathRoles) {
  for (const char* text : {"powerloss@fs.rename[data/state.json.tmp]#3",
                           "crash@fs.write[app.db]#1;powerloss@proc.exit[recover1]#1",
                           "ioerror:ENOSPC@fs.fsync[app.db-journal]#2"}) {
    Result<std::vector<BbFault>> p = ParseBbPlan(text);
    ASSERT_TRUE(p.ok()) << text << ": " << p.status().ToString();
    EXPECT_EQ(PrintBbPlan(*p), text);
  }
  Result<std::vector<BbFault>> eio = ParseBbPlan("ioerror:EIO@fs.write[x]#1");
  ASSERT_TRUE(eio.ok());
  EXPECT_EQ(PrintBbPlan(*eio), "ioerror@fs.write[x]#1");  // EIO is the default spelling
}

TEST(BlackboxPlanTest, RejectsMalformedPlansSayingWhichFaultAndWhy) {
  auto error = [](const char* text) {
    Result<std::vector<BbFault>> p = ParseBbPlan(text);
    return p.ok() ? std::string() : p.status().message();
  };
  EXPECT_NE(error("fs.write[x]#1").find("no '@'"), std::string::npos);
  EXPECT_NE(error("melt@fs.write[x]#1").find("unknown action 'melt'"), std::string::npos);
  EXPECT_NE(error("crash@fs.write[x]").find("point[role]#N"), std::string::npos);
  EXPECT_NE(error("crash@fs.write[x]#0").find("N >= 1"), std::string::npos);
  EXPECT_NE(error("crash@fs.write#1").find("point[role]#N"), std::string::npos);
  EXPECT_NE(error("crash@a[x]#1;crash@b[y]#1;crash@c[z]#1").find("at most two faults"),
            std::string::npos);
  EXPECT_NE(error("crash@a[x]#1;bad").find("plan fault 2"), std::string::npos);
}

}  // namespace
}  // namespace stepfault::properties::blackbox
