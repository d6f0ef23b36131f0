// Triggers: when, among the hits of a fault's point, the fault fires.
//
// As Pebble's errorfs injectors, a trigger is built from small values that compose and print as
// one line that parses back:
//   OnIndex    "#3"        the 3rd matching hit
//   EveryNth   "%2"        every 2nd matching hit (2, 4, 6, ...)
//   Randomly   "~0.25/s7"  each matching hit with probability 0.25, from a stream of seed 7
//   Trigger    "%2&~0.5/s9" all of its terms must fire ('&')
// A term decides from the 1-based number of the matching hit and the text of the fault's point
// only. Randomly derives its draw for hit n from (seed, point, n), so the answer at a hit never
// depends on which other terms were evaluated, on other points, or on anything outside the plan.
// Probabilities are exact multiples of 1e-6, so they print and compare exactly.
// Thread-safety: immutable values; safe to share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/status.h"
#include "faults/plan_syntax.h"

namespace stepfault::faults {

// What a trigger sees at one matching hit.
struct TriggerInput {
  std::string_view point;  // the fault's point as written in the plan ("fs.rename[receipt]")
  int64_t hit = 0;         // 1-based number of this hit among the hits matching that point
};

inline constexpr uint64_t kMaxTriggerCount = 1'000'000'000;
inline constexpr uint32_t kProbabilityScale = 1'000'000;  // probabilities are in millionths

// "#n": fires at the n-th matching hit only.
class OnIndex {
 public:
  // REQUIRES: 1 <= index <= kMaxTriggerCount.
  explicit OnIndex(int64_t index);
  int64_t index() const { return index_; }
  bool Fires(const TriggerInput& in) const { return in.hit == index_; }
  std::string Print() const;
  static Result<OnIndex> Parse(std::string_view text);
  static Result<OnIndex> ParseFrom(PlanScanner& scan);
  friend bool operator==(const OnIndex&, const OnIndex&) = default;

 private:
  int64_t index_;
};

// "%n": fires at every n-th matching hit (n, 2n, 3n, ...).
class EveryNth {
 public:
  // REQUIRES: 1 <= period <= kMaxTriggerCount.
  explicit EveryNth(int64_t period);
  int64_t period() const { return period_; }
  bool Fires(const TriggerInput& in) const { return in.hit > 0 && in.hit % period_ == 0; }
  std::string Print() const;
  static Result<EveryNth> Parse(std::string_view text);
  static Result<EveryNth> ParseFrom(PlanScanner& scan);
  friend bool operator==(const EveryNth&, const EveryNth&) = default;

 private:
  int64_t period_;
};

// "~p/sS": fires at each matching hit with probability p (a decimal with at most 6 digits after
// the point), drawn from the stream of seed S and the point.
class Randomly {
 public:
  // REQUIRES: probability_millionths <= kProbabilityScale.
  Randomly(uint32_t probability_millionths, uint64_t seed);
  uint32_t probability_millionths() const { return probability_millionths_; }
  double probability() const {
    return static_cast<double>(probability_millionths_) / kProbabilityScale;
  }
  uint64_t seed() const { return seed_; }
  bool Fires(const TriggerInput& in) const;
  std::string Print() const;
  static Result<Randomly> Parse(std::string_view text);
  static Result<Randomly> ParseFrom(PlanScanner& scan);
  friend bool operator==(const Randomly&, const Randomly&) = default;

 private:
  uint32_t probability_millionths_;
  uint64_t seed_;
};

using TriggerTerm = std::variant<OnIndex, EveryNth, Randomly>;

// All of its terms must fire. A trigger of a parsed fault has at least one term; an empty trigger
// (the 'none' fault's) never fires.
class Trigger {
 public:
  Trigger() = default;
  explicit Trigger(std::vector<TriggerTerm> terms) : terms_(std::move(terms)) {}
  static Trigger Nth(int64_t index) { return Trigger({OnIndex(index)}); }

  const std::vector<TriggerTerm>& terms() const { return terms_; }
  bool empty() const { return terms_.empty(); }
  // Evaluates every term (no short-cut), then reports whether all fired.
  bool Fires(const TriggerInput& in) const;
  // Terms joined by '&' in order; "" for the empty trigger.
  std::string Print() const;
  // Parses one or more terms joined by '&'. `after` names what precedes the trigger, for the
  // message when no term starts here ("the point 'fs.rename[receipt]'").
  static Result<Trigger> Parse(std::string_view text);
  static Result<Trigger> ParseFrom(PlanScanner& scan, std::string_view after);
  friend bool operator==(const Trigger&, const Trigger&) = default;

 private:
  std::vector<TriggerTerm> terms_;
};

}  // namespace stepfault::faults
