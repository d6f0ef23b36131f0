// Injector: counting hits, evaluating the trigger, and acting on the fault.
#include "faults/injector.h"

#include "faults/points.h"

namespace stepfault::faults {

std::string_view FiredEffectName(FiredEffect effect) {
  switch (effect) {
    case FiredEffect::kDeath:
      return "death";
    case FiredEffect::kFailedOperation:
      return "failed-operation";
    case FiredEffect::kNotApplicable:
      return "not-applicable";
    case FiredEffect::kRecoveryVariation:
      return "recovery-variation";
  }
  return "unknown";
}

Result<Fault> FaultAtWindow(const FaultAction& action, const Window& window) {
  SF_CHECK(window.occurrence >= 1);
  SF_ASSIGN_OR_RETURN(FaultPoint point, FaultPoint::Parse(window.point));
  return Fault{action, std::move(point), Trigger::Nth(window.occurrence)};
}

Injector::Injector(std::optional<Fault> fault, Freezable* world) : world_(world) {
  if (fault && !fault->is_none()) {
    fault_point_text_ = fault->point.Print();
    fault_ = std::move(fault);
  }
}

void Injector::Hit(std::string_view point) {
  const Decision decision = Visit(point, /*from_probe=*/true);
  if (decision.kind == Decision::Kind::kDie) {
    throw CrashSignal{decision.death, died_ ? death_point_ : std::string(point)};
  }
}

Decision Injector::OnPoint(std::string_view point) { return Visit(point, /*from_probe=*/false); }

int Injector::HitCount(std::string_view point) const {
  auto it = counts_.find(point);
  return it == counts_.end() ? 0 : it->second;
}

Decision Injector::Visit(std::string_view point, bool from_probe) {
  // After a death the world is frozen; whatever still runs (a destructor, an unwinding caller that
  // catches too much) meets the same death again.
  if (died_) return Decision::Die(death_kind_);

  auto it = counts_.find(point);
  if (it == counts_.end()) {
    // A window whose point is not in the registry could never be named in a plan or a report:
    // every point code hits must be registered (faults/points.cc, engine/probe_points.h).
    SF_CHECK(FindPoint(point.substr(0, point.find('['))) != nullptr);
    it = counts_.emplace(std::string(point), 0).first;
  }
  const int occurrence = ++it->second;
  hits_.push_back(Window{std::string(point), occurrence});
  if (observer_.at_hit) observer_.at_hit(hits_.back());

  if (!fault_ || !fault_->point.Matches(point)) return Decision::Proceed();
  ++matching_hits_;
  if (!fault_->trigger.Fires(TriggerInput{fault_point_text_, matching_hits_})) {
    return Decision::Proceed();
  }

  FiredEffect effect;
  Decision decision = Decision::Proceed();
  const FaultAction& action = fault_->action;
  if (IsDeath(action)) {
    effect = FiredEffect::kDeath;
    died_ = true;
    death_kind_ = DeathKindOf(action);
    death_point_ = std::string(point);
    if (observer_.at_death) observer_.at_death();
    // The world freezes before anything unwinds, so no destructor on the way out can write.
    // (A file system that gets Die freezes itself too; freezing twice is harmless.)
    if (world_ != nullptr) world_->Freeze(death_kind_, point);
    decision = Decision::Die(death_kind_);
  } else if (action.kind == FaultActionKind::kIOError) {
    if (from_probe) {
      effect = FiredEffect::kNotApplicable;
      ++not_applicable_count_;
    } else {
      effect = FiredEffect::kFailedOperation;
      decision = Decision::Fail(action.io_error == IOErrorKind::kENOSPC ? StatusCode::kNoSpace
                                                                        : StatusCode::kIOError);
    }
  } else {
    SF_CHECK(IsRecoverySide(action));
    effect = FiredEffect::kRecoveryVariation;
  }
  ++fire_count_;
  if (!first_fired_) {
    first_fired_ = Window{std::string(point), occurrence};
    first_effect_ = effect;
  }
  return decision;
}

}  // namespace stepfault::faults
