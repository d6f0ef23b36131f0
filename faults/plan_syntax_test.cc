// Goal: the one scanner of the plan grammars gives every token kind with its 1-based position, and
// its errors name the position, what was expected and what was found.
// Method: hand-written texts scanned token by token; a RapidCheck property that Peek()/Next() cut
// any text into tokens that tile it, each at its position.
#include "faults/plan_syntax.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <vector>

namespace stepfault::faults {
namespace {

using ::testing::StartsWith;

std::vector<Token> AllTokens(std::string_view text) {
  PlanScanner scan(text);
  std::vector<Token> out;
  while (!scan.AtEnd()) out.push_back(scan.Next());
  out.push_back(scan.Next());  // the end
  return out;
}

TEST(PlanSyntax, PeekCutsTextIntoEveryTokenKindWithOneBasedPositions) {
  const std::vector<Token> tokens = AllTokens("crash@fs#12 x;");
  const std::vector<Token> expected = {
      {TokenKind::kWord, "crash", 1}, {TokenKind::kPunct, "@", 6},    {TokenKind::kWord, "fs", 7},
      {TokenKind::kPunct, "#", 9},    {TokenKind::kNumber, "12", 10}, {TokenKind::kOther, " ", 12},
      {TokenKind::kWord, "x", 13},    {TokenKind::kPunct, ";", 14},   {TokenKind::kEnd, "", 15},
  };
  EXPECT_EQ(tokens, expected);
  for (char c : kPunctuation) {
    const std::string text(1, c);
    EXPECT_EQ(AllTokens(text)[0], (Token{TokenKind::kPunct, text, 1})) << c;
  }
  EXPECT_EQ(AllTokens("")[0], (Token{TokenKind::kEnd, "", 1}));
  // A word of the default view takes digits after its first character; a number only digits.
  EXPECT_EQ(AllTokens("s7")[0], (Token{TokenKind::kWord, "s7", 1}));
  EXPECT_EQ(AllTokens("7s")[0], (Token{TokenKind::kNumber, "7", 1}));
}

TEST(PlanSyntax, WordsAreRunsOfTheCharSetTheGrammarNames) {
  PlanScanner scan("fs.rename[data/x.json]#1");
  EXPECT_EQ(scan.Word(CharSet("a-z0-9._-")), (Token{TokenKind::kWord, "fs.rename", 1}));
  EXPECT_TRUE(scan.Accept('['));
  EXPECT_EQ(scan.Word(CharSet::AllBut("];")), (Token{TokenKind::kWord, "data/x.json", 11}));
  EXPECT_FALSE(scan.Accept('#'));
  EXPECT_TRUE(scan.Accept(']'));
  // No character of the set next: an empty word at the position, nothing consumed.
  EXPECT_EQ(scan.Word(CharSet("a-z")), (Token{TokenKind::kWord, "", 23}));
  EXPECT_EQ(scan.position(), 23u);
  EXPECT_TRUE(scan.AcceptLiteral("#1"));
  EXPECT_TRUE(scan.AtEnd());
  EXPECT_FALSE(scan.AcceptLiteral("x"));
}

TEST(PlanSyntax, CharSetsReadRangesLiteralDashesAndComplements) {
  constexpr CharSet name("a-z0-9._-");
  for (char c : std::string_view("az09._-")) EXPECT_TRUE(name.Has(c)) << c;
  for (char c : std::string_view("A/[]#@ ")) EXPECT_FALSE(name.Has(c)) << c;
  EXPECT_EQ(name.Describe(), "[a-z0-9._-]");
  constexpr CharSet path = CharSet::AllBut("];");
  for (char c : std::string_view("a/.@*[# \x80")) EXPECT_TRUE(path.Has(c)) << c;
  for (char c : std::string_view("];\x01\x7f")) EXPECT_FALSE(path.Has(c)) << int{c};
  EXPECT_FALSE(path.Has('\0'));
  EXPECT_EQ(path.Describe(), "[^];]");
}

TEST(PlanSyntax, NumbersAreInRangeWithoutLeadingZerosOrAnErrorAtTheirStart) {
  auto number = [](std::string_view text, uint64_t min, uint64_t max) -> std::string {
    PlanScanner scan(text);
    scan.Accept('#');
    Result<uint64_t> n = scan.Number("hit number", min, max);
    return n.ok() ? std::to_string(*n) : n.status().message();
  };
  EXPECT_EQ(number("#42", 1, 100), "42");
  EXPECT_EQ(number("#0", 0, 100), "0");
  EXPECT_EQ(number("18446744073709551615", 0, UINT64_MAX), "18446744073709551615");
  EXPECT_EQ(number("#007", 1, 100), "position 2: a hit number has no leading zeros");
  EXPECT_EQ(number("#0", 1, 100), "position 2: hit number must be at least 1");
  EXPECT_EQ(number("#101", 1, 100), "position 2: hit number '101' is too large (at most 100)");
  EXPECT_EQ(number("18446744073709551616", 0, UINT64_MAX),
            "position 1: hit number '18446744073709551616' is too large (at most "
            "18446744073709551615)");
  EXPECT_EQ(number("#x", 1, 100), "position 2: expected a hit number (digits), found 'x'");
  EXPECT_EQ(number("#", 1, 100),
            "position 2: expected a hit number (digits), found the end of the text");
}

TEST(PlanSyntax, ErrorsNamePositionExpectationAndWhatWasFound) {
  PlanScanner scan("crash!x\x01");
  scan.Word(CharSet("a-z"));
  const Status expected = scan.Expected("'@' and a point");
  EXPECT_EQ(expected.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(expected.message(), "position 6: expected '@' and a point, found '!'");
  EXPECT_EQ(scan.ExpectEnd("the fault").message(), "position 6: unexpected '!' after the fault");
  EXPECT_TRUE(scan.Accept('!'));
  EXPECT_THAT(scan.Expected("the end").message(),
              StartsWith("position 7: expected the end, found 'x'"));
  scan.Next();
  // Control characters are shown escaped.
  EXPECT_EQ(scan.Found(), "'\\x01'");
  scan.Next();
  EXPECT_TRUE(scan.ExpectEnd("the fault").ok());
  EXPECT_EQ(scan.Expected("a fault").message(),
            "position 9: expected a fault, found the end of the text");
  EXPECT_EQ(PlanScanner::ErrorAt(3, "why").message(), "position 3: why");
}

TEST(PlanSyntax, JoinedItemsStopAtTheEndTheLimitOrAMissingSeparator) {
  const JoinedForm form{',', 2, "at most 2 items", "',' or the end"};
  auto joined = [&](std::string_view text) -> std::string {
    PlanScanner scan(text);
    Result<std::vector<uint64_t>> items =
        scan.ParseJoined<uint64_t>(form, [](PlanScanner& s) { return s.Number("digit", 0, 9); });
    if (!items.ok()) return items.status().message();
    std::string out;
    for (uint64_t n : *items) out += std::to_string(n) + ".";
    return out;
  };
  EXPECT_EQ(joined("1"), "1.");
  EXPECT_EQ(joined("1,2"), "1.2.");
  EXPECT_EQ(joined("1,2,3"), "position 5: at most 2 items");
  EXPECT_EQ(joined("1;2"), "position 2: expected ',' or the end, found ';'");
  EXPECT_EQ(joined("1,"), "position 3: expected a digit (digits), found the end of the text");
  EXPECT_EQ(joined(""), "position 1: expected a digit (digits), found the end of the text");
}

// Whatever the text, the tokens of Peek()/Next() tile it in order, each at its 1-based position,
// none empty but the end.
RC_GTEST_PROP(PlanSyntax, TokensTileAnyText, ()) {
  const std::string text = *rc::gen::container<std::string>(
      rc::gen::elementOf(std::string("az09AZ_-@[]#%~&;,:/. \x01")));
  size_t position = 1;
  std::string joined;
  PlanScanner scan(text);
  for (size_t i = 0; i <= text.size(); ++i) {
    const Token token = scan.Next();
    RC_ASSERT(token.position == position);
    if (token.kind == TokenKind::kEnd) break;
    RC_ASSERT(!token.text.empty());
    joined += token.text;
    position += token.text.size();
  }
  RC_ASSERT(joined == text);
  RC_ASSERT(scan.AtEnd());
}

}  // namespace
}  // namespace stepfault::faults
