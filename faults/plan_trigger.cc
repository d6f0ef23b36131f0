// Trigger terms: evaluation, printing and parsing.
#include "faults/plan_trigger.h"

#include "engine/random.h"

namespace stepfault::faults {
namespace {

constexpr std::string_view kTriggerForms =
    "'#N' (the N-th hit), '%N' (every N-th hit) or '~P/sS' (probability P, seed S)";

// Wraps a term parser so Parse(text) demands the whole text be one term.
template <typename T>
Result<T> ParseWhole(std::string_view text) {
  PlanScanner scan(text);
  SF_ASSIGN_OR_RETURN(T value, T::ParseFrom(scan));
  SF_RETURN_IF_ERROR(scan.ExpectEnd("the trigger"));
  return value;
}

}  // namespace

OnIndex::OnIndex(int64_t index) : index_(index) {
  SF_CHECK(index >= 1 && index <= static_cast<int64_t>(kMaxTriggerCount));
}
std::string OnIndex::Print() const { return "#" + std::to_string(index_); }
Result<OnIndex> OnIndex::Parse(std::string_view text) { return ParseWhole<OnIndex>(text); }
Result<OnIndex> OnIndex::ParseFrom(PlanScanner& scan) {
  if (!scan.Accept('#')) return scan.Expected("'#' starting a hit number");
  SF_ASSIGN_OR_RETURN(uint64_t n, scan.Number("hit number after '#'", 1, kMaxTriggerCount));
  return OnIndex(static_cast<int64_t>(n));
}

EveryNth::EveryNth(int64_t period) : period_(period) {
  SF_CHECK(period >= 1 && period <= static_cast<int64_t>(kMaxTriggerCount));
}
std::string EveryNth::Print() const { return "%" + std::to_string(period_); }
Result<EveryNth> EveryNth::Parse(std::string_view text) { return ParseWhole<EveryNth>(text); }
Result<EveryNth> EveryNth::ParseFrom(PlanScanner& scan) {
  if (!scan.Accept('%')) return scan.Expected("'%' starting a period");
  SF_ASSIGN_OR_RETURN(uint64_t n, scan.Number("period after '%'", 1, kMaxTriggerCount));
  return EveryNth(static_cast<int64_t>(n));
}

Randomly::Randomly(uint32_t probability_millionths, uint64_t seed)
    : probability_millionths_(probability_millionths), seed_(seed) {
  SF_CHECK(probability_millionths <= kProbabilityScale);
}

bool Randomly::Fires(const TriggerInput& in) const {
  // One independent draw per (seed, point, hit): a pure function, so replay needs only the plan.
  Rng rng(DeriveSeed(DeriveSeed(seed_, in.point), "hit " + std::to_string(in.hit)));
  return rng.Uniform(kProbabilityScale) < probability_millionths_;
}

std::string Randomly::Print() const {
  std::string p;
  if (probability_millionths_ == kProbabilityScale) {
    p = "1";
  } else if (probability_millionths_ == 0) {
    p = "0";
  } else {
    std::string frac = std::to_string(probability_millionths_);
    frac.insert(0, 6 - frac.size(), '0');
    while (frac.back() == '0') frac.pop_back();
    p = "0." + frac;
  }
  return "~" + p + "/s" + std::to_string(seed_);
}

Result<Randomly> Randomly::Parse(std::string_view text) { return ParseWhole<Randomly>(text); }

Result<Randomly> Randomly::ParseFrom(PlanScanner& scan) {
  if (!scan.Accept('~')) return scan.Expected("'~' starting a probability");
  const size_t start = scan.position();
  const bool one = scan.AcceptLiteral("1");
  if (!one && !scan.AcceptLiteral("0")) {
    return scan.Expected("a probability between 0 and 1 after '~' (e.g. '~0.25/s7')");
  }
  uint32_t millionths = one ? kProbabilityScale : 0;
  if (scan.Accept('.')) {
    const Token digits = scan.Digits();
    const std::string_view frac = digits.text;
    if (frac.empty()) return scan.Expected("digits after the decimal point");
    if (frac.size() > 6) {
      return PlanScanner::ErrorAt(digits.position,
                                  "a probability has at most 6 digits after the point");
    }
    uint32_t value = 0;
    for (size_t i = 0; i < 6; ++i) value = value * 10 + (i < frac.size() ? frac[i] - '0' : 0);
    if (one && value != 0) return PlanScanner::ErrorAt(start, "a probability is at most 1");
    millionths += value;
  }
  if (!scan.Accept('/') || !scan.AcceptLiteral("s")) {
    return scan.Expected("'/s' and a seed after the probability (e.g. '~0.25/s7')");
  }
  SF_ASSIGN_OR_RETURN(uint64_t seed, scan.Number("seed after '/s'", 0, UINT64_MAX));
  return Randomly(millionths, seed);
}

bool Trigger::Fires(const TriggerInput& in) const {
  if (terms_.empty()) return false;
  bool all = true;
  for (const TriggerTerm& term : terms_) {
    const bool fires = std::visit([&](const auto& t) { return t.Fires(in); }, term);
    all = all && fires;
  }
  return all;
}

std::string Trigger::Print() const {
  std::string out;
  for (const TriggerTerm& term : terms_) {
    if (!out.empty()) out += '&';
    out += std::visit([](const auto& t) { return t.Print(); }, term);
  }
  return out;
}

Result<Trigger> Trigger::Parse(std::string_view text) {
  PlanScanner scan(text);
  SF_ASSIGN_OR_RETURN(Trigger trigger, ParseFrom(scan, "the start"));
  if (!scan.AtEnd()) return scan.Expected("'&' joining another trigger or the end");
  return trigger;
}

Result<Trigger> Trigger::ParseFrom(PlanScanner& scan, std::string_view after) {
  std::vector<TriggerTerm> terms;
  // Each term consumes at least two characters, so the text length bounds the loop.
  for (size_t i = 0; i <= scan.text().size(); ++i) {
    const Token next = scan.Peek();
    switch (next.kind == TokenKind::kPunct ? next.text[0] : '\0') {
      case '#': {
        SF_ASSIGN_OR_RETURN(OnIndex t, OnIndex::ParseFrom(scan));
        terms.emplace_back(t);
        break;
      }
      case '%': {
        SF_ASSIGN_OR_RETURN(EveryNth t, EveryNth::ParseFrom(scan));
        terms.emplace_back(t);
        break;
      }
      case '~': {
        SF_ASSIGN_OR_RETURN(Randomly t, Randomly::ParseFrom(scan));
        terms.emplace_back(t);
        break;
      }
      default:
        if (terms.empty()) {
          return scan.Error("expected '#', '%' or '~' starting a trigger after " +
                            std::string(after) + ", found " + scan.Found() + "; write " +
                            std::string(kTriggerForms) + ", joined by '&'");
        }
        return scan.Expected("'#', '%' or '~' starting a trigger after '&'");
    }
    if (!scan.Accept('&')) return Trigger(std::move(terms));
  }
  SF_CHECK(false && "trigger parse loop bound hit");
  return Status::Internal("unreachable");
}

}  // namespace stepfault::faults
