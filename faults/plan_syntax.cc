// Plan syntax: the scanner's tokens and the error form (see plan_syntax.h).
#include "faults/plan_syntax.h"

namespace stepfault::faults {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A character of a message: itself when printable, else "\xNN".
std::string Printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace

std::string Token::Describe() const {
  if (kind == TokenKind::kEnd) return "the end of the text";
  return "'" + Printable(text) + "'";
}

Token PlanScanner::Peek() const {
  if (AtEnd()) return Token{TokenKind::kEnd, {}, position()};
  const char c = text_[pos_];
  auto run = [&](auto pred) {
    size_t end = pos_;
    while (end < text_.size() && pred(text_[end])) ++end;
    return text_.substr(pos_, end - pos_);
  };
  if (kPunctuation.find(c) != std::string_view::npos) {
    return Token{TokenKind::kPunct, text_.substr(pos_, 1), position()};
  }
  if (IsDigit(c)) return Token{TokenKind::kNumber, run(IsDigit), position()};
  if (kDefaultWordChars.Has(c)) {
    return Token{TokenKind::kWord, run([](char w) { return kDefaultWordChars.Has(w); }),
                 position()};
  }
  return Token{TokenKind::kOther, text_.substr(pos_, 1), position()};
}

Token PlanScanner::Next() {
  Token token = Peek();
  pos_ += token.text.size();
  return token;
}

bool PlanScanner::Accept(char c) {
  if (AtEnd() || text_[pos_] != c) return false;
  ++pos_;
  return true;
}

bool PlanScanner::AcceptLiteral(std::string_view literal) {
  if (!text_.substr(pos_).starts_with(literal)) return false;
  pos_ += literal.size();
  return true;
}

Token PlanScanner::Take(TokenKind kind, size_t end) {
  Token token{kind, text_.substr(pos_, end - pos_), position()};
  pos_ = end;
  return token;
}

Token PlanScanner::Word(const CharSet& chars) {
  size_t end = pos_;
  while (end < text_.size() && chars.Has(text_[end])) ++end;
  return Take(TokenKind::kWord, end);
}

Token PlanScanner::Digits() {
  size_t end = pos_;
  while (end < text_.size() && IsDigit(text_[end])) ++end;
  return Take(TokenKind::kNumber, end);
}

Result<uint64_t> PlanScanner::Number(std::string_view what, uint64_t min, uint64_t max) {
  if (AtEnd() || !IsDigit(text_[pos_])) {
    return Expected("a " + std::string(what) + " (digits)");
  }
  const Token digits = Digits();
  if (digits.text.size() > 1 && digits.text[0] == '0') {
    return ErrorAt(digits.position, "a " + std::string(what) + " has no leading zeros");
  }
  uint64_t value = 0;
  for (char c : digits.text) {
    const auto d = static_cast<uint64_t>(c - '0');
    if (d > max || value > (max - d) / 10) {
      return ErrorAt(digits.position, std::string(what) + " '" + std::string(digits.text) +
                                          "' is too large (at most " + std::to_string(max) + ")");
    }
    value = value * 10 + d;
  }
  if (value < min) {
    return ErrorAt(digits.position, std::string(what) + " must be at least " + std::to_string(min));
  }
  return value;
}

Status PlanScanner::ErrorAt(size_t position, std::string_view reason) {
  return Status::InvalidArgument("position " + std::to_string(position) + ": " +
                                 std::string(reason));
}

Status PlanScanner::Expected(std::string_view what) const {
  return Error("expected " + std::string(what) + ", found " + Found());
}

Status PlanScanner::ExpectEnd(std::string_view what) const {
  if (AtEnd()) return Status::Ok();
  return Error("unexpected " + Found() + " after " + std::string(what));
}

}  // namespace stepfault::faults
