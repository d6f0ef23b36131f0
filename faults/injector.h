// Injector: one life's fault, acting at the fault points the engine, the stores, the scenarios
// (through Probe::Hit) and the file systems (through FaultHook::OnPoint) reach.
//
// The injector counts every hit of every point (by its exact text, role included) and records the
// ordered windows (point, occurrence), occurrence being 1-based per exact point text; an injector
// without a fault is how the harness records a run's windows. When its fault's trigger fires at a
// matching hit:
//  - a death (crash, powerloss, corrupt, fail-after-write) freezes the world (if one is given) and
//    unwinds the life: Hit throws CrashSignal, OnPoint returns Decision::Die (the file system then
//    throws). Every later Hit/OnPoint dies again, so nothing runs on past the death.
//  - ioerror fails that file operation (OnPoint returns Decision::Fail); at a Probe point, which
//    has no operation to fail, it is recorded as not applicable and does nothing.
//  - a recovery-side action (topology, duplicate/conflicting response, observer-cancel) is only
//    recorded; the harness applies it.
// Deterministic: the outcome depends only on the fault and the sequence of hits. No global state.
// Thread-safety: one thread drives an injector (as it drives the world).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/probe.h"
#include "faults/fault_hook.h"
#include "faults/plan.h"

namespace stepfault::faults {

// One dynamic hit of a point: the `occurrence`-th hit of exactly `point`.
struct Window {
  std::string point;
  int occurrence = 0;
  friend bool operator==(const Window&, const Window&) = default;
};

// The fault that strikes `action` exactly at `window` of a run whose hits repeat the recorded
// ones: "action@point#occurrence" (a window's point carries its exact role, so occurrences of the
// window and of the pattern agree). REQUIRES: the window's point name is hit either always with a
// role or never (true of every registered point); a role-less window of a name also hit with roles
// would count those hits too. Fails when the window's point is not valid plan text.
Result<Fault> FaultAtWindow(const FaultAction& action, const Window& window);

// What firing did.
enum class FiredEffect {
  kDeath,              // the life died
  kFailedOperation,    // a file operation failed with the injected error
  kNotApplicable,      // ioerror at a point that has no file operation
  kRecoveryVariation,  // a recovery-side action; the harness applies it
};
std::string_view FiredEffectName(FiredEffect effect);

class Injector : public Probe, public FaultHook {
 public:
  // `fault` nullopt or 'none': a fault-free life. `world` may be null; it is not owned and must
  // outlive the injector.
  explicit Injector(std::optional<Fault> fault = std::nullopt, Freezable* world = nullptr);

  // Probe: may throw CrashSignal.
  void Hit(std::string_view point) override;
  // FaultHook: never throws.
  Decision OnPoint(std::string_view point) override;

  const std::optional<Fault>& fault() const { return fault_; }
  // Whether the trigger fired at least once, and where it fired first.
  bool fired() const { return first_fired_.has_value(); }
  const std::optional<Window>& fired_window() const { return first_fired_; }
  std::optional<FiredEffect> fired_effect() const { return first_effect_; }
  // How many times the trigger fired (ioerror with '%N' may fail many operations).
  int fire_count() const { return fire_count_; }
  bool died() const { return died_; }
  bool recovery_variation_fired() const { return first_effect_ == FiredEffect::kRecoveryVariation; }
  // ioerror fired at a Probe point, where there is no operation to fail.
  bool not_applicable() const { return not_applicable_count_ > 0; }

  // Who hears the hits as they happen (either may be empty): `at_hit` at every recorded hit, right
  // after it is counted and before the fault is considered, so the world and everything the life
  // holds are as they were at that instant; `at_death` once, when the fault kills the life, before
  // the world freezes and anything unwinds. How the harness records a fault-free life window by
  // window and cuts a dying life at its death (properties/life_runner.h).
  struct Observer {
    std::function<void(const Window& hit)> at_hit;
    std::function<void()> at_death;
  };
  void SetObserver(Observer observer) { observer_ = std::move(observer); }

  // Every hit in order (after a death, the hits that were refused are not recorded).
  const std::vector<Window>& hits() const { return hits_; }
  // Hits of exactly `point` (role included).
  int HitCount(std::string_view point) const;
  const std::map<std::string, int, std::less<>>& counts() const { return counts_; }

 private:
  Decision Visit(std::string_view point, bool from_probe);

  std::optional<Fault> fault_;
  std::string fault_point_text_;  // fault_->point.Print(), the Randomly stream's point
  Freezable* world_;
  std::map<std::string, int, std::less<>> counts_;
  std::vector<Window> hits_;
  int64_t matching_hits_ = 0;
  int fire_count_ = 0;
  int not_applicable_count_ = 0;
  std::optional<Window> first_fired_;
  std::optional<FiredEffect> first_effect_;
  bool died_ = false;
  DeathKind death_kind_ = DeathKind::kCrash;
  std::string death_point_;
  Observer observer_;
};

}  // namespace stepfault::faults
