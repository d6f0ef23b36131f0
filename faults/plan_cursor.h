// PlanCursor: the reading position of the plan-text parsers (plan.cc, plan_trigger.cc,
// kill_injector.cc), so every error names the 1-based character position in the whole text.
//
// Promises: errors read "position N: <reason>", where N is the position of the offending character
// (one past the last character when the text ended too early). Thread-safety: a value; one user.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/status.h"

namespace stepfault::faults {

class PlanCursor {
 public:
  explicit PlanCursor(std::string_view text) : text_(text) {}

  bool AtEnd() const { return pos_ >= text_.size(); }
  // The current character, or '\0' at the end.
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  // 0-based offset of the current character.
  size_t offset() const { return pos_; }
  std::string_view text() const { return text_; }
  std::string_view Since(size_t start) const { return text_.substr(start, pos_ - start); }

  // Consumes `c` if it is next.
  bool Consume(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }
  // Consumes the longest run of characters satisfying `pred` and returns it.
  template <typename Pred>
  std::string_view TakeWhile(Pred pred) {
    const size_t start = pos_;
    while (!AtEnd() && pred(text_[pos_])) ++pos_;
    return Since(start);
  }

  // "position N: reason" at 0-based `offset`.
  Status ErrorAt(size_t offset, std::string_view reason) const {
    return Status::InvalidArgument("position " + std::to_string(offset + 1) + ": " +
                                   std::string(reason));
  }
  Status Error(std::string_view reason) const { return ErrorAt(pos_, reason); }

  // A description of the current character for messages: "'x'" or "the end of the text".
  std::string Found() const {
    return AtEnd() ? std::string("the end of the text") : "'" + std::string(1, Peek()) + "'";
  }

  // Reads a decimal number in [min, max] written without leading zeros.
  // `what` names the number in messages ("hit number").
  Result<uint64_t> ReadNumber(std::string_view what, uint64_t min, uint64_t max) {
    const size_t start = pos_;
    std::string_view digits = TakeWhile([](char c) { return c >= '0' && c <= '9'; });
    if (digits.empty()) {
      return ErrorAt(start, "expected a " + std::string(what) + " (digits), found " + Found());
    }
    if (digits.size() > 1 && digits[0] == '0') {
      return ErrorAt(start, "a " + std::string(what) + " has no leading zeros");
    }
    uint64_t value = 0;
    for (char c : digits) {
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (d > max || value > (max - d) / 10) {
        return ErrorAt(start, std::string(what) + " '" + std::string(digits) +
                                  "' is too large (at most " + std::to_string(max) + ")");
      }
      value = value * 10 + d;
    }
    if (value < min) {
      return ErrorAt(start, std::string(what) + " must be at least " + std::to_string(min));
    }
    return value;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace stepfault::faults
