// Plan syntax: the one scanner and the one error form of every plan grammar: in-process plans and
// their triggers (faults/plan.h, faults/plan_trigger.h), --crash-at targets
// (faults/kill_injector.h), black-box plans (faults/blackbox/plan.h) and interactive-flow plans
// (scenarios/interactive_flow/flow_plan.h).
//
// As pebble's internal/dsl serves several grammars with one scanner, the scanner knows the tokens
// and a grammar says which one it expects next:
//   word    a run of the characters of a CharSet the grammar names ("[a-z0-9._-]" for a point
//           name, any character but "];" for a black-box role that is a path); Word()
//   number  a run of decimal digits; Digits(), and Number() for one in a range written without
//           leading zeros
//   punct   one character of kPunctuation ("@[]#%~&;,:/."); Accept()
//   end     the end of the text
// and ParseJoined() reads items joined by one punctuation character ("a;b", "a,b,c").
// What comes next, when it is not what the grammar expected, is described by Peek(): the end, one
// punctuation character, a number, a word of kDefaultWordChars, or any other single character.
// Every token carries its 1-based character position in the whole text; the end's is one past the
// last character.
//
// Errors: Status::InvalidArgument "position N: <reason>", the reason saying what was expected and
// what was found ("position 7: expected a point name ([a-z0-9._-]+, ...), found 'X'"); Expected()
// and ErrorAt() build them, so every grammar reports alike.
// Thread-safety: a PlanScanner is a value with one user; CharSet and Token are values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/status.h"

namespace stepfault::faults {

// The punctuation the plan grammars use.
inline constexpr std::string_view kPunctuation = "@[]#%~&;,:/.";

// A set of characters, written as in a bracket expression: single characters and ranges
// ("a-z0-9._-"; a '-' first or last stands for itself). AllBut() is the complement, without control
// characters.
class CharSet {
 public:
  constexpr explicit CharSet(std::string_view spec) : spec_(spec) {
    for (size_t i = 0; i < spec.size(); ++i) {
      if (i + 2 < spec.size() && spec[i + 1] == '-') {
        for (int c = static_cast<unsigned char>(spec[i]);
             c <= static_cast<unsigned char>(spec[i + 2]); ++c)
          Set(static_cast<unsigned char>(c));
        i += 2;
      } else {
        Set(static_cast<unsigned char>(spec[i]));
      }
    }
  }
  // Every character but those of `spec`, the control characters (below ' ') and DEL.
  static constexpr CharSet AllBut(std::string_view spec) {
    CharSet set(spec);
    set.negated_ = true;
    for (auto& word : set.bits_) word = ~word;
    for (unsigned c = 0; c < 0x20; ++c) set.Clear(c);
    set.Clear(0x7f);
    return set;
  }

  constexpr bool Has(char c) const {
    const auto u = static_cast<unsigned char>(c);
    return ((bits_[u / 64] >> (u % 64)) & 1U) != 0;
  }
  // For messages: "[a-z0-9._-]", or "[^];]" for AllBut("];").
  std::string Describe() const {
    return std::string(negated_ ? "[^" : "[") + std::string(spec_) + "]";
  }

 private:
  constexpr void Set(unsigned c) { bits_[c / 64] |= uint64_t{1} << (c % 64); }
  constexpr void Clear(unsigned c) { bits_[c / 64] &= ~(uint64_t{1} << (c % 64)); }

  std::array<uint64_t, 4> bits_{};
  std::string_view spec_;
  bool negated_ = false;
};

// The word characters of Peek()'s view of the text (what an error says it found).
inline constexpr CharSet kDefaultWordChars("a-zA-Z0-9_-");

enum class TokenKind { kWord, kNumber, kPunct, kOther, kEnd };

// A list of items joined by one punctuation character, up to the end of the text (ParseJoined).
struct JoinedForm {
  char separator = ';';
  size_t max_items = 0;
  std::string_view too_many;  // the reason at the first item past max_items
  std::string_view after;     // what may follow an item, for the message ("';' ... or the end")
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // empty for kEnd (and for a Word() or Digits() that found none)
  size_t position = 1;    // 1-based

  bool IsPunct(char c) const {
    return kind == TokenKind::kPunct && text.size() == 1 && text[0] == c;
  }
  // For messages: "the end of the text", or the text quoted ("'#'", "'crush'").
  std::string Describe() const;
  friend bool operator==(const Token&, const Token&) = default;
};

class PlanScanner {
 public:
  explicit PlanScanner(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  // 1-based position of the next character (one past the last at the end).
  size_t position() const { return pos_ + 1; }

  // The next token, not consumed: the end, a punctuation character, a number, a word of
  // kDefaultWordChars, or any other single character.
  Token Peek() const;
  // The next token as Peek() sees it, consumed.
  Token Next();
  // Consumes the punctuation character `c` if it is next.
  bool Accept(char c);
  // Consumes `literal` if the text goes on with it (a keyword, such as the 's' of "/s7").
  bool AcceptLiteral(std::string_view literal);
  // Consumes the longest run of `chars` (a kWord token; empty text when none is next).
  Token Word(const CharSet& chars);
  // Consumes the longest run of decimal digits (a kNumber token; empty text when none is next).
  Token Digits();
  // Reads a decimal number in [min, max] written without leading zeros. `what` names it in
  // messages ("hit number after '#'").
  Result<uint64_t> Number(std::string_view what, uint64_t min, uint64_t max);

  // Items of `form` up to the end of the text, each read by parse_item(*this) -> Result<T>.
  template <typename T, typename ParseItem>
  Result<std::vector<T>> ParseJoined(const JoinedForm& form, ParseItem parse_item) {
    std::vector<T> out;
    // Every item consumes at least one character, so the text length bounds the loop.
    for (size_t i = 0; i <= text_.size(); ++i) {
      if (out.size() == form.max_items) return Error(form.too_many);
      SF_ASSIGN_OR_RETURN(T item, parse_item(*this));
      out.push_back(std::move(item));
      if (AtEnd()) return out;
      if (!Accept(form.separator)) return Expected(form.after);
    }
    SF_CHECK(false && "joined list parse loop bound hit");
    return Status::Internal("unreachable");
  }

  // The error form: "position N: reason".
  static Status ErrorAt(size_t position, std::string_view reason);
  Status Error(std::string_view reason) const { return ErrorAt(position(), reason); }
  // "position N: expected <what>, found <the next token>".
  Status Expected(std::string_view what) const;
  // OK at the end; else "position N: unexpected <the next token> after <what>".
  Status ExpectEnd(std::string_view what) const;
  // The next token described, for a message.
  std::string Found() const { return Peek().Describe(); }

 private:
  Token Take(TokenKind kind, size_t end);

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace stepfault::faults
