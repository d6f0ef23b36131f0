// Goal: the plan text is a faithful, canonical one-line form of a Plan, and malformed text is
// rejected with the exact 1-based position and a reason, never a crash.
// Method: RapidCheck generates plans covering every action, parameter, role shape and trigger
// composition and checks Parse(Print(p)) == p and Print(Parse(Print(p))) == Print(p); it mutates
// valid texts (drop or insert a character) and checks the result is either a plan that round-trips
// or an error whose position lies inside the text. Hand-written cases pin exact messages.
#include "faults/plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <regex>
#include <set>

#include "faults/plan_syntax_test_util.h"

namespace rc {

using stepfault::faults::ConflictField;
using stepfault::faults::CorruptionKind;
using stepfault::faults::EveryNth;
using stepfault::faults::Fault;
using stepfault::faults::FaultAction;
using stepfault::faults::FaultActionKind;
using stepfault::faults::FaultPoint;
using stepfault::faults::IOErrorKind;
using stepfault::faults::OnIndex;
using stepfault::faults::Plan;
using stepfault::faults::Randomly;
using stepfault::faults::TopologyMutation;
using stepfault::faults::Trigger;
using stepfault::faults::TriggerTerm;

namespace {
Gen<std::string> StringOf(std::string alphabet, int min_size, int max_size) {
  return gen::mapcat(gen::inRange(min_size, max_size + 1), [alphabet](int n) {
    return gen::container<std::string>(static_cast<size_t>(n), gen::elementOf(alphabet));
  });
}
// Counts: mostly small (as written by hand), sometimes at the bounds.
Gen<int64_t> Count() {
  return gen::oneOf(gen::inRange<int64_t>(1, 20), gen::inRange<int64_t>(1, 1'000'000'001),
                    gen::just<int64_t>(1'000'000'000));
}
}  // namespace

template <>
struct Arbitrary<FaultAction> {
  static Gen<FaultAction> arbitrary() {
    return gen::oneOf(
        gen::map(
            gen::element(FaultActionKind::kCrash, FaultActionKind::kPowerLoss,
                         FaultActionKind::kFailAfterWrite, FaultActionKind::kDuplicateResponse,
                         FaultActionKind::kConflictingResponse, FaultActionKind::kObserverCancel),
            [](FaultActionKind k) { return FaultAction::Of(k); }),
        gen::map(gen::element(IOErrorKind::kEIO, IOErrorKind::kENOSPC), &FaultAction::IOError),
        gen::map(gen::element(CorruptionKind::kBitflip, CorruptionKind::kTruncate,
                              CorruptionKind::kZero),
                 &FaultAction::Corrupt),
        gen::map(gen::element(TopologyMutation::kPermuteEdges, TopologyMutation::kSwapFanIn,
                              TopologyMutation::kRenameExecutor, TopologyMutation::kRemoveEdge,
                              TopologyMutation::kChangePortType, TopologyMutation::kDuplicateEdge),
                 &FaultAction::Topology),
        gen::map(gen::element(ConflictField::kChoice, ConflictField::kComment,
                              ConflictField::kRequestId),
                 &FaultAction::Conflicting));
  }
};

template <>
struct Arbitrary<FaultPoint> {
  static Gen<FaultPoint> arbitrary() {
    Gen<std::string> name =
        gen::oneOf(gen::element<std::string>("fs.rename", "fs.write", "checkpoint.commit.before",
                                             "host.resume", "effect.commit.after"),
                   StringOf("abcxyz0189._-", 1, 12));
    Gen<std::string> role = gen::oneOf(gen::just(std::string()),
                                       gen::element<std::string>("checkpoint", "index", "receipt",
                                                                 "db", "journal", "lock", "file"),
                                       StringOf("abz09_-", 1, 8));
    return gen::build<FaultPoint>(gen::set(&FaultPoint::name, name),
                                  gen::set(&FaultPoint::role, role));
  }
};

template <>
struct Arbitrary<TriggerTerm> {
  static Gen<TriggerTerm> arbitrary() {
    return gen::oneOf(
        gen::map(Count(), [](int64_t n) { return TriggerTerm(OnIndex(n)); }),
        gen::map(Count(), [](int64_t n) { return TriggerTerm(EveryNth(n)); }),
        gen::apply([](uint32_t p, uint64_t seed) { return TriggerTerm(Randomly(p, seed)); },
                   gen::oneOf(gen::inRange<uint32_t>(0, 1'000'001),
                              gen::element<uint32_t>(0, 250'000, 1'000'000)),
                   gen::arbitrary<uint64_t>()));
  }
};

template <>
struct Arbitrary<Fault> {
  static Gen<Fault> arbitrary() {
    Gen<Fault> active = gen::build<Fault>(
        gen::set(&Fault::action), gen::set(&Fault::point),
        gen::set(&Fault::trigger,
                 gen::map(gen::nonEmpty(gen::container<std::vector<TriggerTerm>>(
                              gen::arbitrary<TriggerTerm>())),
                          [](std::vector<TriggerTerm> t) { return Trigger(std::move(t)); })));
    return gen::weightedOneOf<Fault>({{1, gen::just(Fault::None())}, {6, active}});
  }
};

template <>
struct Arbitrary<Plan> {
  static Gen<Plan> arbitrary() {
    return gen::build<Plan>(
        gen::set(&Plan::faults, gen::resize(8, gen::arbitrary<std::vector<Fault>>())));
  }
};

}  // namespace rc

namespace stepfault::faults {
namespace {

using ::testing::HasSubstr;

RC_GTEST_PROP(PlanText, EveryGeneratedPlanRoundTripsThroughItsText, (const Plan& plan)) {
  const std::string text = PrintPlan(plan);
  Result<Plan> parsed = ParsePlan(text);
  RC_ASSERT(parsed.ok());
  RC_ASSERT(*parsed == plan);
  RC_ASSERT(PrintPlan(*parsed) == text);
}

// The 1-based position in an error message, or -1 when there is none.
long ErrorPosition(const Status& status) {
  static const std::regex kPosition("^position ([0-9]+): .+");
  std::smatch m;
  if (!std::regex_match(status.message(), m, kPosition)) return -1;
  return std::stol(m[1].str());
}

RC_GTEST_PROP(PlanText, MutatedTextIsAPlanThatRoundTripsOrAnErrorInsideTheText,
              (const Plan& plan)) {
  std::string text = PrintPlan(plan);
  const bool drop = !text.empty() && *rc::gen::arbitrary<bool>();
  if (drop) {
    text.erase(*rc::gen::inRange<size_t>(0, text.size()), 1);
  } else {
    const size_t at = *rc::gen::inRange<size_t>(0, text.size() + 1);
    text.insert(at, 1, *rc::gen::elementOf(std::string("#%~&;@[]:./s0129aAzE- \x01")));
  }
  Result<Plan> parsed = ParsePlan(text);
  if (parsed.ok()) {
    const std::string printed = PrintPlan(*parsed);
    Result<Plan> reparsed = ParsePlan(printed);
    RC_ASSERT(reparsed.ok());
    RC_ASSERT(*reparsed == *parsed);
  } else {
    RC_ASSERT(parsed.status().code() == StatusCode::kInvalidArgument);
    const long position = ErrorPosition(parsed.status());
    RC_ASSERT(position >= 1);
    RC_ASSERT(position <= static_cast<long>(text.size()) + 1);
  }
}

// The round-trip property is only as strong as its generator: check that it reaches every action
// (with every parameter), both point shapes, every trigger term, compositions, 'none' and the
// empty plan.
TEST(PlanText, GeneratorCoversEveryActionRoleShapeAndTriggerComposition) {
  std::set<std::string> seen;
  for (int i = 0; i < 3000; ++i) {
    const Plan plan =
        rc::gen::arbitrary<Plan>()(rc::Random(static_cast<uint64_t>(i)), i % 100).value();
    if (plan.faults.empty()) seen.insert("empty-plan");
    for (const Fault& f : plan.faults) {
      if (f.is_none()) {
        seen.insert("none");
        continue;
      }
      seen.insert(FaultActionName(f.action));
      seen.insert(f.point.role.empty() ? "role-less" : "role");
      if (f.trigger.terms().size() > 1) seen.insert("composite");
      for (const TriggerTerm& t : f.trigger.terms())
        seen.insert("term" + std::to_string(t.index()));
    }
  }
  std::set<std::string> expected = {"empty-plan", "none",          "role-less", "role",
                                    "composite",  "term0",         "term1",     "term2",
                                    "ioerror",    "ioerror:ENOSPC"};
  for (FaultActionKind kind : AllFaultActionKinds()) {
    if (kind == FaultActionKind::kCorrupt) {
      for (CorruptionKind c : AllCorruptionKinds())
        expected.insert(FaultActionName(FaultAction::Corrupt(c)));
    } else if (kind == FaultActionKind::kTopology) {
      for (TopologyMutation m : AllTopologyMutations())
        expected.insert(FaultActionName(FaultAction::Topology(m)));
    } else if (kind == FaultActionKind::kConflictingResponse) {
      for (ConflictField f : AllConflictFields())
        expected.insert(FaultActionName(FaultAction::Conflicting(f)));
    } else if (kind != FaultActionKind::kIOError) {
      expected.insert(std::string(FaultActionKindName(kind)));
    }
  }
  for (const std::string& e : expected)
    EXPECT_TRUE(seen.count(e) > 0) << "generator never produced " << e;
}

TEST(PlanText, CanonicalExamplesPrintExactlyAsWritten) {
  for (std::string_view text : {
           "",
           "powerloss@fs.rename[receipt]#1;crash@effect.commit.after#1",
           "ioerror:ENOSPC@fs.write%2&~0.5/s9",
           "none;corrupt:zero@fs.rename[checkpoint]#3",
           "topology:swap-fan-in@host.resume#1;observer-cancel@host.resume#2",
           "fail-after-write@effect.commit.after#1&%1&~1/s0&~0/s18446744073709551615",
           "crash@fs.write~0.000001/s7",
       }) {
    Result<Plan> plan = ParsePlan(text);
    ASSERT_TRUE(plan.ok()) << text << ": " << plan.status().ToString();
    EXPECT_EQ(PrintPlan(*plan), text);
  }
}

TEST(PlanText, ParsesTheStructureOfAFault) {
  Result<Plan> plan = ParsePlan("ioerror:ENOSPC@fs.write[db]%2&~0.25/s7;none");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->faults.size(), 2u);
  const Fault& f = plan->faults[0];
  EXPECT_EQ(f.action, FaultAction::IOError(IOErrorKind::kENOSPC));
  EXPECT_EQ(f.point, (FaultPoint{"fs.write", "db"}));
  ASSERT_EQ(f.trigger.terms().size(), 2u);
  EXPECT_EQ(std::get<EveryNth>(f.trigger.terms()[0]).period(), 2);
  EXPECT_EQ(std::get<Randomly>(f.trigger.terms()[1]).probability_millionths(), 250'000u);
  EXPECT_EQ(std::get<Randomly>(f.trigger.terms()[1]).seed(), 7u);
  EXPECT_TRUE(plan->faults[1].is_none());
}

TEST(PlanText, NonCanonicalSpellingsPrintInCanonicalForm) {
  EXPECT_EQ(PrintPlan(*ParsePlan("ioerror:EIO@fs.write#1")), "ioerror@fs.write#1");
  EXPECT_EQ(PrintPlan(*ParsePlan("crash@x~0.50/s1")), "crash@x~0.5/s1");
  EXPECT_EQ(PrintPlan(*ParsePlan("crash@x~1.000/s1")), "crash@x~1/s1");
}

TEST(PlanText, ConflictingResponseVariesOneFieldAtATimeAndStaysBackwardCompatible) {
  // The plain action keeps its old meaning (every field differs) and its old text.
  EXPECT_EQ(ParsePlan("conflicting-response@host.resume#1")->faults[0].action,
            FaultAction::Conflicting(ConflictField::kAll));
  EXPECT_EQ(PrintPlan(*ParsePlan("conflicting-response@host.resume#1")),
            "conflicting-response@host.resume#1");
  for (const char* field : {"choice", "comment", "request-id"}) {
    const std::string text = std::string("conflicting-response:") + field + "@host.resume#1";
    Result<Plan> plan = ParsePlan(text);
    ASSERT_TRUE(plan.ok()) << text << ": " << plan.status().ToString();
    EXPECT_EQ(PrintPlan(*plan), text);
    EXPECT_NE(plan->faults[0].action, FaultAction::Conflicting(ConflictField::kAll)) << text;
  }
  // Each variant is its own action (a distinct exploration cell).
  std::set<std::string> names;
  for (const FaultAction& a : VariantsOf(FaultActionKind::kConflictingResponse))
    names.insert(FaultActionName(a));
  EXPECT_EQ(names.size(), AllConflictFields().size());
  Result<Plan> bad = ParsePlan("conflicting-response:all@host.resume#1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("expected choice, comment or request-id"),
            std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(ParsePlan("duplicate-response:choice@host.resume#1").ok());
}

TEST(PlanText, ForLifeGivesEachLifeItsFaultAndNoneBeyond) {
  Plan plan = *ParsePlan("crash@a#1;none;powerloss@b#2");
  EXPECT_EQ(plan.ForLife(1)->Print(), "crash@a#1");
  EXPECT_FALSE(plan.ForLife(2).has_value());
  EXPECT_EQ(plan.ForLife(3)->Print(), "powerloss@b#2");
  EXPECT_FALSE(plan.ForLife(4).has_value());
  EXPECT_FALSE(Plan{}.ForLife(1).has_value());
}

TEST(PlanText, ActionNamesAndClassification) {
  EXPECT_EQ(FaultActionName(FaultAction::Corrupt(CorruptionKind::kTruncate)), "corrupt:truncate");
  EXPECT_EQ(FaultActionName(FaultAction::Topology(TopologyMutation::kChangePortType)),
            "topology:change-port-type");
  EXPECT_EQ(FaultActionName(FaultAction::IOError(IOErrorKind::kEIO)), "ioerror");
  for (FaultActionKind kind : AllFaultActionKinds()) {
    const FaultAction a = FaultAction::Of(kind);
    EXPECT_FALSE(IsDeath(a) && IsRecoverySide(a)) << FaultActionKindName(kind);
  }
  EXPECT_TRUE(IsDeath(FaultAction::Of(FaultActionKind::kCrash)));
  EXPECT_TRUE(IsDeath(FaultAction::Corrupt(CorruptionKind::kZero)));
  EXPECT_FALSE(IsDeath(FaultAction::IOError(IOErrorKind::kEIO)));
  EXPECT_FALSE(IsRecoverySide(FaultAction::IOError(IOErrorKind::kEIO)));
  EXPECT_TRUE(IsRecoverySide(FaultAction::Of(FaultActionKind::kObserverCancel)));
  EXPECT_EQ(DeathKindOf(FaultAction::Of(FaultActionKind::kCrash)), DeathKind::kCrash);
  EXPECT_EQ(DeathKindOf(FaultAction::Of(FaultActionKind::kPowerLoss)), DeathKind::kPowerLoss);
  EXPECT_EQ(DeathKindOf(FaultAction::Of(FaultActionKind::kFailAfterWrite)), DeathKind::kExit);
  EXPECT_EQ(DeathKindOf(FaultAction::Corrupt(CorruptionKind::kBitflip)), DeathKind::kCrash);
}

TEST(PlanText, PointMatchingIgnoresRolesOnlyWhenThePatternHasNone) {
  const FaultPoint any{"fs.rename", ""};
  const FaultPoint receipt{"fs.rename", "receipt"};
  EXPECT_TRUE(any.Matches("fs.rename[receipt]"));
  EXPECT_TRUE(any.Matches("fs.rename[index]"));
  EXPECT_TRUE(any.Matches("fs.rename"));
  EXPECT_FALSE(any.Matches("fs.renamex[receipt]"));
  EXPECT_TRUE(receipt.Matches("fs.rename[receipt]"));
  EXPECT_FALSE(receipt.Matches("fs.rename[receipts]"));
  EXPECT_FALSE(receipt.Matches("fs.rename"));
}

TEST(PlanText, MalformedPlansAreRejectedWithPositionAndReason) {
  const testing::BadPlan cases[] = {
      {"crash@fs.rename[receipt]",
       "position 25: expected '#', '%' or '~' starting a trigger after the point "
       "'fs.rename[receipt]', "
       "found the end of the text; write '#N'"},
      {"crush@x#1", "position 1: unknown action 'crush'; expected one of crash, powerloss"},
      {"crash#1",
       "position 6: expected '@' and a point after the action 'crash', found '#' (e.g. "
       "'crash@checkpoint.commit.before#1')"},
      {"crash@#1", "position 7: expected a point name ([a-z0-9._-]+"},
      {"crash@X#1",
       "position 7: expected a point name ([a-z0-9._-]+, e.g. 'fs.rename' or "
       "'checkpoint.commit.before'), found 'X'"},
      {"crash@fs.rename[]#1",
       "position 17: expected a role ([a-z0-9_-]+, e.g. 'receipt') after '['"},
      {"crash@fs.rename[receipt#1",
       "position 24: expected ']' closing the role 'receipt', found '#'"},
      {"crash@x#0", "position 9: hit number after '#' must be at least 1"},
      {"crash@x#01", "position 9: a hit number after '#' has no leading zeros"},
      {"crash@x#99999999999", "position 9: hit number after '#' '99999999999' is too large"},
      {"crash@x%", "position 9: expected a period after '%' (digits), found the end of the text"},
      {"crash@x#1;", "position 11: expected a fault after ';'"},
      {"crash@x#1 ;crash@y#1",
       "position 10: expected '&' joining another trigger, ';' starting the next "
       "fault, or the end of the plan, found ' '"},
      {"crash@x#1&", "position 11: expected '#', '%' or '~' starting a trigger after '&'"},
      {"ioerror:EBADF@fs.write#1", "position 9: unknown I/O error 'EBADF'; write 'ioerror:EIO' or"},
      {"corrupt@fs.write[checkpoint]#1",
       "position 8: expected ':' and a corruption (bitflip|truncate|zero)"},
      {"topology:flip@host.resume#1",
       "position 10: unknown topology mutation 'flip'; expected permute-edges|"},
      {"crash:bitflip@x#1", "position 6: action 'crash' takes no ':' parameter"},
      {"none@x#1", "position 5: 'none' is a life without a fault and takes no point"},
      {"none x", "position 5: expected ';' starting the next fault, or the end of the plan"},
      {"crash@x~0.5#1",
       "position 12: expected '/s' and a seed after the probability (e.g. '~0.25/s7')"},
      {"crash@x~1.5/s1", "position 9: a probability is at most 1"},
      {"crash@x~2/s1", "position 9: expected a probability between 0 and 1 after '~'"},
      {"crash@x~0.1234567/s1", "position 11: a probability has at most 6 digits after the point"},
      {"crash@x~0./s1", "position 11: expected digits after the decimal point"},
      {"crash@x~0.5/s", "position 14: expected a seed after '/s' (digits)"},
      {"crash@x~0.5/s18446744073709551616",
       "position 14: seed after '/s' '18446744073709551616' is too large"},
      {";", "position 1: expected an action"},
  };
  testing::ExpectEachRejectedAsSaid(ParsePlan, cases);
}

TEST(PlanText, TriggerTermsParseAndPrintAlone) {
  EXPECT_EQ(OnIndex::Parse("#3")->Print(), "#3");
  EXPECT_EQ(EveryNth::Parse("%2")->Print(), "%2");
  EXPECT_EQ(Randomly::Parse("~0.25/s7")->Print(), "~0.25/s7");
  EXPECT_EQ(Trigger::Parse("%2&~0.5/s9")->Print(), "%2&~0.5/s9");
  EXPECT_FALSE(OnIndex::Parse("%2").ok());
  EXPECT_THAT(OnIndex::Parse("#2x").status().message(), HasSubstr("position 3: unexpected 'x'"));
  EXPECT_EQ(FaultPoint::Parse("fs.rename[receipt]")->Print(), "fs.rename[receipt]");
  EXPECT_EQ(Fault::Parse("crash@a#1")->Print(), "crash@a#1");
}

TEST(PlanText, TriggersComposeByConjunction) {
  const Trigger t = *Trigger::Parse("%2&#4");
  std::vector<int64_t> fired;
  for (int64_t n = 1; n <= 10; ++n) {
    if (t.Fires({"p", n})) fired.push_back(n);
  }
  EXPECT_EQ(fired, std::vector<int64_t>{4});
  EXPECT_FALSE(Trigger().Fires({"p", 1}));
}

}  // namespace
}  // namespace stepfault::faults
