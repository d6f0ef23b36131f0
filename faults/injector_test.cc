// Goal: the injector acts exactly at the hit its fault's trigger names, records every window, and
// keeps a dead life dead.
// Method: drive injectors with hand-written hit sequences through both seams (Probe::Hit and
// FaultHook::OnPoint) and check the decisions, throws, recorded windows, and a Freezable double;
// RapidCheck checks that a fault built from any recorded window of a random run strikes exactly
// there when the run is repeated (the explorer's record-then-inject loop).
#include "faults/injector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

namespace stepfault::faults {
namespace {

Fault F(std::string_view text) {
  Result<Fault> fault = Fault::Parse(text);
  SF_CHECK(fault.ok());
  return *fault;
}

class FakeWorld : public Freezable {
 public:
  void Freeze(DeathKind kind, std::string_view point) override {
    ++freezes;
    kind_ = kind;
    point_ = std::string(point);
  }
  int freezes = 0;
  DeathKind kind_ = DeathKind::kCrash;
  std::string point_;
};

// Hits `point` through the Probe seam; returns whether it threw a CrashSignal (stored in *signal).
bool HitDies(Injector& injector, std::string_view point, CrashSignal* signal = nullptr) {
  try {
    injector.Hit(point);
  } catch (const CrashSignal& s) {
    if (signal != nullptr) *signal = s;
    return true;
  }
  return false;
}

// The observer hears every counted hit before the fault is considered, and the death once, before
// the world freezes: what lets the harness copy a life's state at any window and cut a dying life
// at its death. Refused hits after the death are not heard.
TEST(Injector, TheObserverHearsEachHitBeforeTheFaultAndTheDeathBeforeTheWorldFreezes) {
  FakeWorld world;
  Injector injector(F("powerloss@fs.fsync#2"), &world);
  std::vector<std::string> heard;
  injector.SetObserver({[&](const Window& w) {
                          heard.push_back(w.point + "#" + std::to_string(w.occurrence) +
                                          " frozen=" + std::to_string(world.freezes));
                        },
                        [&] { heard.push_back("death frozen=" + std::to_string(world.freezes)); }});
  EXPECT_EQ(injector.OnPoint("fs.fsync").kind, Decision::Kind::kProceed);
  EXPECT_FALSE(HitDies(injector, "checkpoint.commit.before"));
  EXPECT_EQ(injector.OnPoint("fs.fsync").kind, Decision::Kind::kDie);
  EXPECT_TRUE(HitDies(injector, "checkpoint.commit.after"));
  EXPECT_THAT(heard,
              ::testing::ElementsAre("fs.fsync#1 frozen=0", "checkpoint.commit.before#1 frozen=0",
                                     "fs.fsync#2 frozen=0", "death frozen=0"));
  EXPECT_EQ(world.freezes, 1);
}

TEST(Injector, CrashFiresExactlyAtTheNthMatchingHit) {
  Injector injector(F("crash@checkpoint.commit.before#3"));
  EXPECT_FALSE(HitDies(injector, "checkpoint.commit.before"));
  EXPECT_FALSE(HitDies(injector, "checkpoint.commit.after"));
  EXPECT_FALSE(HitDies(injector, "checkpoint.commit.before"));
  EXPECT_FALSE(injector.fired());
  CrashSignal signal;
  EXPECT_TRUE(HitDies(injector, "checkpoint.commit.before", &signal));
  EXPECT_EQ(signal.kind, DeathKind::kCrash);
  EXPECT_EQ(signal.point, "checkpoint.commit.before");
  EXPECT_TRUE(injector.fired());
  EXPECT_TRUE(injector.died());
  EXPECT_EQ(injector.fired_window(), (Window{"checkpoint.commit.before", 3}));
  EXPECT_EQ(injector.fired_effect(), FiredEffect::kDeath);
}

TEST(Injector, EveryNthFailsEveryNthFileOperation) {
  Injector injector(F("ioerror:ENOSPC@fs.write[db]%2"));
  std::vector<Decision::Kind> kinds;
  for (int i = 0; i < 6; ++i) {
    Decision d = injector.OnPoint("fs.write[db]");
    kinds.push_back(d.kind);
    if (d.kind == Decision::Kind::kFail) {
      EXPECT_EQ(d.fail_code, StatusCode::kNoSpace);
    }
  }
  using K = Decision::Kind;
  EXPECT_EQ(kinds,
            (std::vector<K>{K::kProceed, K::kFail, K::kProceed, K::kFail, K::kProceed, K::kFail}));
  EXPECT_EQ(injector.fire_count(), 3);
  EXPECT_EQ(injector.fired_window(), (Window{"fs.write[db]", 2}));
  EXPECT_FALSE(injector.died());
}

TEST(Injector, DefaultIOErrorIsEIO) {
  Injector injector(F("ioerror@fs.fsync#1"));
  Decision d = injector.OnPoint("fs.fsync[checkpoint]");
  EXPECT_EQ(d.kind, Decision::Kind::kFail);
  EXPECT_EQ(d.fail_code, StatusCode::kIOError);
}

// The decisions of `fault` at `n` hits of `point`, with an unrelated point interleaved when asked.
std::vector<bool> Firings(const Fault& fault, std::string_view point, int n, bool interleave) {
  Injector injector(fault);
  std::vector<bool> out;
  for (int i = 0; i < n; ++i) {
    if (interleave) (void)injector.OnPoint("fs.fsync[other]");
    out.push_back(injector.OnPoint(point).kind == Decision::Kind::kFail);
  }
  return out;
}

TEST(Injector, ProbabilityTriggerIsDeterministicPerSeedAndRoughlyP) {
  const Fault fault = F("ioerror@fs.write~0.25/s7");
  const std::vector<bool> a = Firings(fault, "fs.write[db]", 4000, false);
  EXPECT_EQ(a, Firings(fault, "fs.write[db]", 4000, false));
  // The stream depends on the seed and the point only, not on other points' hits.
  EXPECT_EQ(a, Firings(fault, "fs.write[db]", 4000, true));
  EXPECT_NE(a, Firings(F("ioerror@fs.write~0.25/s8"), "fs.write[db]", 4000, false));
  const double rate = static_cast<double>(std::count(a.begin(), a.end(), true)) / a.size();
  EXPECT_GT(rate, 0.22);
  EXPECT_LT(rate, 0.28);
  const std::vector<bool> never = Firings(F("ioerror@fs.write~0/s7"), "fs.write[db]", 500, false);
  EXPECT_EQ(std::count(never.begin(), never.end(), true), 0);
  const std::vector<bool> always = Firings(F("ioerror@fs.write~1/s7"), "fs.write[db]", 500, false);
  EXPECT_EQ(std::count(always.begin(), always.end(), true), 500);
}

TEST(Injector, CompositeTriggerNeedsAllTerms) {
  // Every 2nd hit, and then only with probability 0.5: never at odd hits, at about a quarter
  // overall.
  const std::vector<bool> f = Firings(F("ioerror@fs.write%2&~0.5/s9"), "fs.write[db]", 4000, false);
  int fired = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i]) {
      ++fired;
      EXPECT_EQ((i + 1) % 2, 0u) << "fired at odd hit " << i + 1;
    }
  }
  EXPECT_GT(fired, 800);
  EXPECT_LT(fired, 1200);
}

TEST(Injector, RolelessPointMatchesEveryRoleCountedAcrossRoles) {
  Injector injector(F("powerloss@fs.rename#2"));
  EXPECT_EQ(injector.OnPoint("fs.rename[checkpoint]").kind, Decision::Kind::kProceed);
  EXPECT_EQ(injector.OnPoint("fs.write[receipt]").kind, Decision::Kind::kProceed);
  Decision d = injector.OnPoint("fs.rename[receipt]");
  EXPECT_EQ(d.kind, Decision::Kind::kDie);
  EXPECT_EQ(d.death, DeathKind::kPowerLoss);
  EXPECT_EQ(injector.fired_window(), (Window{"fs.rename[receipt]", 1}));
}

TEST(Injector, PointWithRoleMatchesOnlyThatRole) {
  Injector injector(F("crash@fs.rename[receipt]#1"));
  EXPECT_EQ(injector.OnPoint("fs.rename[checkpoint]").kind, Decision::Kind::kProceed);
  EXPECT_EQ(injector.OnPoint("fs.rename").kind, Decision::Kind::kProceed);
  EXPECT_EQ(injector.OnPoint("fs.rename[receipt]").kind, Decision::Kind::kDie);
}

TEST(Injector, FaultFreeLifeRecordsWindowsInOrderWithOccurrences) {
  Injector injector;
  injector.Hit("step.handlers.after");
  EXPECT_EQ(injector.OnPoint("fs.write[checkpoint]").kind, Decision::Kind::kProceed);
  EXPECT_EQ(injector.OnPoint("fs.write[index]").kind, Decision::Kind::kProceed);
  EXPECT_EQ(injector.OnPoint("fs.write[checkpoint]").kind, Decision::Kind::kProceed);
  injector.Hit("step.handlers.after");
  EXPECT_EQ(injector.hits(), (std::vector<Window>{{"step.handlers.after", 1},
                                                  {"fs.write[checkpoint]", 1},
                                                  {"fs.write[index]", 1},
                                                  {"fs.write[checkpoint]", 2},
                                                  {"step.handlers.after", 2}}));
  EXPECT_EQ(injector.HitCount("fs.write[checkpoint]"), 2);
  EXPECT_EQ(injector.HitCount("fs.write"), 0);  // counts are per exact point text
  EXPECT_EQ(injector.counts().size(), 3u);
  EXPECT_FALSE(injector.fired());
}

TEST(Injector, NoneFaultNeverFires) {
  Injector injector(Fault::None());
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(HitDies(injector, "checkpoint.commit.before"));
  EXPECT_FALSE(injector.fired());
  EXPECT_FALSE(injector.fault().has_value());
}

TEST(Injector, AfterADeathEveryLaterHitDiesAgainAndIsNotRecorded) {
  FakeWorld world;
  Injector injector(F("fail-after-write@effect.commit.after#1"), &world);
  CrashSignal first;
  EXPECT_TRUE(HitDies(injector, "effect.commit.after", &first));
  EXPECT_EQ(first.kind, DeathKind::kExit);
  const size_t recorded = injector.hits().size();
  CrashSignal again;
  EXPECT_TRUE(HitDies(injector, "output.publish.before", &again));
  EXPECT_EQ(again.kind, DeathKind::kExit);
  EXPECT_EQ(again.point, "effect.commit.after");
  Decision d = injector.OnPoint("fs.write[db]");
  EXPECT_EQ(d.kind, Decision::Kind::kDie);
  EXPECT_EQ(d.death, DeathKind::kExit);
  EXPECT_EQ(injector.hits().size(), recorded);
  EXPECT_EQ(injector.fire_count(), 1);
  EXPECT_EQ(world.freezes, 1);
}

TEST(Injector, IOErrorAtANonFilePointIsRecordedAsNotApplicable) {
  Injector injector(F("ioerror@checkpoint.commit.before#1"));
  EXPECT_FALSE(HitDies(injector, "checkpoint.commit.before"));
  EXPECT_TRUE(injector.fired());
  EXPECT_TRUE(injector.not_applicable());
  EXPECT_EQ(injector.fired_effect(), FiredEffect::kNotApplicable);
  EXPECT_FALSE(injector.died());
}

TEST(Injector, WorldIsFrozenBeforeTheCrashSignalUnwinds) {
  FakeWorld world;
  Injector injector(F("corrupt:bitflip@checkpoint.commit.after#1"), &world);
  try {
    injector.Hit("checkpoint.commit.after");
    FAIL() << "the crash did not unwind";
  } catch (const CrashSignal& signal) {
    // By the time anything on the unwinding path runs, the world refuses operations.
    EXPECT_EQ(world.freezes, 1);
    EXPECT_EQ(world.kind_, DeathKind::kCrash);
    EXPECT_EQ(world.point_, "checkpoint.commit.after");
    EXPECT_EQ(signal.kind, DeathKind::kCrash);
  }
}

TEST(Injector, DeathAtAFilePointFreezesAndReturnsDie) {
  FakeWorld world;
  Injector injector(F("powerloss@fs.fsync[checkpoint]#2"), &world);
  EXPECT_EQ(injector.OnPoint("fs.fsync[checkpoint]").kind, Decision::Kind::kProceed);
  EXPECT_EQ(world.freezes, 0);
  Decision d = injector.OnPoint("fs.fsync[checkpoint]");
  EXPECT_EQ(d.kind, Decision::Kind::kDie);
  EXPECT_EQ(d.death, DeathKind::kPowerLoss);
  EXPECT_EQ(world.freezes, 1);
  EXPECT_EQ(world.kind_, DeathKind::kPowerLoss);
  EXPECT_EQ(world.point_, "fs.fsync[checkpoint]");
}

TEST(Injector, RecoverySideActionIsOnlyReported) {
  FakeWorld world;
  Injector injector(F("topology:remove-edge@host.resume#1"), &world);
  EXPECT_FALSE(HitDies(injector, "host.resume"));
  EXPECT_TRUE(injector.recovery_variation_fired());
  EXPECT_EQ(injector.fired_effect(), FiredEffect::kRecoveryVariation);
  EXPECT_FALSE(injector.died());
  EXPECT_EQ(world.freezes, 0);
  EXPECT_FALSE(HitDies(injector, "host.resume"));
}

RC_GTEST_PROP(Injector, AFaultAtAnyRecordedWindowStrikesExactlyThere, ()) {
  // As in real runs, a name is hit either always with a role (fs.*) or never (the rest).
  const std::vector<std::string> points = {"fs.write[db]", "fs.write[checkpoint]",
                                           "step.handlers.after", "checkpoint.commit.before",
                                           "fs.rename[receipt]"};
  const auto run = *rc::gen::nonEmpty(
      rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, points.size())));
  Injector recorder;
  for (size_t i : run) (void)recorder.OnPoint(points[i]);
  RC_ASSERT(recorder.hits().size() == run.size());
  const size_t chosen = *rc::gen::inRange<size_t>(0, run.size());
  const Window window = recorder.hits()[chosen];

  Result<Fault> fault = FaultAtWindow(FaultAction::Of(FaultActionKind::kCrash), window);
  RC_ASSERT(fault.ok());
  Injector injector(*fault);
  size_t died_at = run.size();
  for (size_t i = 0; i < run.size(); ++i) {
    if (injector.OnPoint(points[run[i]]).kind == Decision::Kind::kDie) {
      died_at = i;
      break;
    }
  }
  RC_ASSERT(died_at == chosen);
  RC_ASSERT(injector.fired_window() == window);
}

}  // namespace
}  // namespace stepfault::faults
