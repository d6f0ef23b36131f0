// Goal: interactive-flow plans are a faithful one-line text over the plan scanner, and malformed
// text is rejected at the right 1-based position with the reason and the expected form.
// Method: a RapidCheck round trip over generated plans (every kind, every actor, one to four
// faults, steps at the bounds); hand-written texts pin the position and reason of each error.
#include "scenarios/interactive_flow/flow_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "faults/plan_syntax_test_util.h"

namespace stepfault::scenarios::flow {
namespace {

using ::testing::StartsWith;

rc::Gen<FlowFault> ActiveFault() {
  return rc::gen::apply(
      [](FlowFault::Kind kind, int actor, int step) {
        return FlowFault{kind, actor, step};
      },
      rc::gen::element(FlowFault::Kind::kCrashActor, FlowFault::Kind::kPowerLoss,
                       FlowFault::Kind::kTimeAdvance),
      rc::gen::inRange(0, static_cast<int>(FlowActorNames().size())),
      rc::gen::oneOf(rc::gen::inRange(1, 30), rc::gen::inRange(1, kMaxFlowStep + 1),
                     rc::gen::just(kMaxFlowStep)));
}

RC_GTEST_PROP(FlowPlanText, EveryGeneratedPlanRoundTripsThroughItsText, ()) {
  const FlowPlan plan = *rc::gen::container<FlowPlan>(
      *rc::gen::inRange<size_t>(0, kMaxFlowPlanFaults + 1), ActiveFault());
  const std::string text = FlowPlanText(plan);
  Result<FlowPlan> parsed = ParseFlowPlan(text);
  RC_ASSERT(parsed.ok());
  RC_ASSERT(*parsed == plan);
  RC_ASSERT(FlowPlanText(*parsed) == text);
  if (plan.size() == 1) {
    Result<FlowFault> one = ParseFlowFault(text);
    RC_ASSERT(one.ok());
    RC_ASSERT(*one == plan[0]);
  }
}

TEST(FlowPlanText, CanonicalExamplesPrintExactlyAsWritten) {
  for (const char* text :
       {"none", "crash:b@3", "powerloss:e@12", "time:c@1", "crash:b@2,powerloss:a@6",
        "crash:a@3,time:c@1,powerloss:b@8,time:e@1"}) {
    Result<FlowPlan> plan = ParseFlowPlan(text);
    ASSERT_TRUE(plan.ok()) << text << ": " << plan.status().message();
    EXPECT_EQ(FlowPlanText(*plan), text);
  }
  EXPECT_TRUE(ParseFlowPlan("")->empty());
  EXPECT_EQ(ParseFlowFault("none")->kind, FlowFault::Kind::kNone);
  EXPECT_EQ(FlowFaultText(*ParseFlowFault("")), "none");
  EXPECT_EQ(*ParseFlowFault("powerloss:d@7"), (FlowFault{FlowFault::Kind::kPowerLoss, 3, 7}));
}

TEST(FlowPlanText, MalformedPlansAreRejectedWithPositionReasonAndExpectedForm) {
  const faults::testing::BadPlan cases[] = {
      {"melt:a@1",
       "position 1: unknown fault 'melt'; expected crash:<actor>@<step>, powerloss:<actor>@<step> "
       "or time:<actor>@<step>"},
      {"@a", "position 1: expected a fault (crash:<actor>@<step>"},
      {"crash",
       "position 6: expected ':' and an actor after 'crash' (e.g. 'crash:b@3'), found the "
       "end of the text"},
      {"crash:z@1",
       "position 7: unknown actor 'z'; the actor is a letter a-e (a worker-a, b worker-b, c "
       "sweeper, d responder, e clock)"},
      {"crash:ab@1", "position 7: unknown actor 'ab'"},
      {"crash:@1", "position 7: expected an actor, a letter a-e"},
      {"crash:a3",
       "position 8: expected '@' and the actor's step after the actor (e.g. "
       "'crash:b@3'), found '3'"},
      {"crash:a@0", "position 9: step after '@' must be at least 1"},
      {"crash:a@03", "position 9: a step after '@' has no leading zeros"},
      {"crash:a@", "position 9: expected a step after '@' (digits), found the end of the text"},
      {"crash:a@1000001", "position 9: step after '@' '1000001' is too large (at most 1000000)"},
      {"crash:a@1;time:b@2", "position 10: expected ',' starting the next fault, or the end"},
      {"crash:a@1,none", "position 11: 'none' is a plan without faults and stands alone"},
      {"crash:a@1,,time:b@2", "position 11: expected a fault (crash:<actor>@<step>"},
      {"crash:a@1,", "position 11: expected a fault"},
      {"time:a@1,time:a@2,time:a@3,time:a@4,time:a@5", "position 37: at most 4 faults in a plan"},
  };
  faults::testing::ExpectEachRejectedAsSaid(ParseFlowPlan, cases);
  // One fault: the same errors, and nothing may follow it.
  EXPECT_THAT(ParseFlowFault("crash:z@1").status().message(),
              StartsWith("position 7: unknown actor 'z'"));
  EXPECT_THAT(ParseFlowFault("crash:a@1,time:b@2").status().message(),
              StartsWith("position 10: unexpected ',' after the fault"));
}

}  // namespace
}  // namespace stepfault::scenarios::flow
