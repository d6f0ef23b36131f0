// The function scan of function_scan.h: blank what is not code, tokenise, then walk the scopes.
#include "tools/testing/function_scan.h"

#include <cctype>
#include <cstddef>
#include <set>

namespace stepfault::test_env {
namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Blanks s[from, to) in `out`, newlines kept.
void Blank(std::string& out, size_t from, size_t to) {
  for (size_t i = from; i < to && i < out.size(); ++i) {
    if (out[i] != '\n') out[i] = ' ';
  }
}

// The end (one past) of the quoted literal opened by s[i] (a '"' or '\''), stopping at an
// unescaped newline so that a stray quote cannot swallow the rest of the file.
size_t QuotedEnd(std::string_view s, size_t i) {
  const char quote = s[i];
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '\\') {
      ++j;
    } else if (s[j] == quote || s[j] == '\n') {
      return j + 1;
    }
  }
  return s.size();
}

// When the '"' at s[i] opens a raw string (R, u8R, uR, UR, LR just before it), its end (one
// past the closing quote); else 0.
size_t RawStringEnd(std::string_view s, size_t i) {
  size_t p = i;
  while (p > 0 && IsIdentChar(s[p - 1])) --p;
  const std::string_view prefix = s.substr(p, i - p);
  if (prefix != "R" && prefix != "u8R" && prefix != "uR" && prefix != "UR" && prefix != "LR") {
    return 0;
  }
  const size_t open = s.find('(', i);
  if (open == std::string_view::npos) return s.size();
  const std::string close = ")" + std::string(s.substr(i + 1, open - i - 1)) + "\"";
  const size_t end = s.find(close, open);
  return end == std::string_view::npos ? s.size() : end + close.size();
}

// True when the '\'' at s[i] is a digit separator (1'000'000), not a character literal.
bool IsDigitSeparator(std::string_view s, size_t i) {
  size_t p = i;
  while (p > 0 && (IsIdentChar(s[p - 1]) || s[p - 1] == '\'' || s[p - 1] == '.')) --p;
  return p < i && std::isdigit(static_cast<unsigned char>(s[p])) != 0;
}

// The end of the preprocessor directive starting at s[i] (its newline, backslash-continued lines
// included).
size_t DirectiveEnd(std::string_view s, size_t i) {
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] == '\n' && (j == 0 || s[j - 1] != '\\')) return j;
  }
  return s.size();
}

}  // namespace

std::string BlankNonCode(std::string_view source) {
  std::string out(source);
  const std::string_view s = source;
  bool line_start = true;  // only white space since the last newline
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    size_t end = i;  // > i: s[i, end) is not code
    if (c == '\n') {
      line_start = true;
    } else if (line_start && c == '#') {
      end = DirectiveEnd(s, i);
    } else if (c == '/' && next == '/') {
      end = s.find('\n', i);
      if (end == std::string_view::npos) end = s.size();
    } else if (c == '/' && next == '*') {
      end = s.find("*/", i + 2);
      end = end == std::string_view::npos ? s.size() : end + 2;
    } else if (c == '"') {
      end = RawStringEnd(s, i);
      if (end == 0) end = QuotedEnd(s, i);
    } else if (c == '\'' && !IsDigitSeparator(s, i)) {
      end = QuotedEnd(s, i);
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') line_start = false;
    if (end > i) {
      Blank(out, i, end);
      i = end;
    } else {
      ++i;
    }
  }
  return out;
}

namespace {

struct Token {
  std::string text;
  int line = 0;
};

std::vector<Token> Tokenize(std::string_view code) {
  std::vector<Token> tokens;
  int line = 1;
  size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (c == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    if (IsIdentChar(c)) {
      while (end < code.size() && (IsIdentChar(code[end]) || code[end] == '.')) {
        if (code[end] == '.' && std::isdigit(static_cast<unsigned char>(c)) == 0) break;
        ++end;
      }
    } else if ((c == ':' && code.substr(i, 2) == "::") || (c == '-' && code.substr(i, 2) == "->") ||
               (c == '&' && code.substr(i, 2) == "&&")) {
      end = i + 2;
    }
    tokens.push_back(Token{std::string(code.substr(i, end - i)), line});
    i = end;
  }
  return tokens;
}

bool IsIdentifier(const std::string& t) {
  return !t.empty() && IsIdentChar(t[0]) && std::isdigit(static_cast<unsigned char>(t[0])) == 0;
}

bool IsMacroName(const std::string& t) {
  bool upper = false;
  for (char c : t) {
    if (std::islower(static_cast<unsigned char>(c)) != 0) return false;
    upper = upper || std::isupper(static_cast<unsigned char>(c)) != 0;
  }
  return upper;
}

// The index of the '(' matching the ')' at head[close], or head.size() when there is none.
size_t MatchingOpen(const std::vector<Token>& head, size_t close) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (head[i].text == ")") ++depth;
    if (head[i].text == "(" && --depth == 0) return i;
  }
  return head.size();
}

// The index of the ')' that closes a function head's parameter list, or head.size() when `head`
// is not a function head (see function_scan.h).
size_t ParamsClose(const std::vector<Token>& head) {
  static const std::set<std::string> kQualifiers = {
      "const", "volatile", "override", "final", "noexcept", "mutable", "&", "&&", "try"};
  size_t end = head.size();
  int depth = 0;
  for (size_t i = 0; i < head.size(); ++i) {  // a trailing return type: cut at its "->"
    depth += head[i].text == "(" ? 1 : head[i].text == ")" ? -1 : 0;
    if (depth == 0 && head[i].text == "->") end = i;
  }
  size_t i = end;
  while (i > 0) {
    const std::string& t = head[i - 1].text;
    if (kQualifiers.count(t) != 0) {
      --i;
      continue;
    }
    if (t != ")") return head.size();
    const size_t open = MatchingOpen(head, i - 1);
    if (open == head.size()) return open;
    if (open > 0 && (head[open - 1].text == "noexcept" || head[open - 1].text == "throw")) {
      i = open - 1;
      continue;
    }
    return i - 1;
  }
  return head.size();
}

// "Suite.Name" from a test macro's first two arguments, head(open, close).
std::string MacroTestName(const std::vector<Token>& head, size_t open, size_t close) {
  std::vector<std::string> args(1);
  int depth = 0;
  for (size_t i = open + 1; i < close; ++i) {
    const std::string& t = head[i].text;
    depth += t == "(" ? 1 : t == ")" ? -1 : 0;
    if (depth == 0 && t == ",") {
      args.emplace_back();
    } else if (args.back().empty()) {
      args.back() = t;
    }
  }
  if (args.size() < 2) return head[open - 1].text;
  return args[0] + "." + args[1];
}

// The function's name and the index of its name token, from its parameter list head[open, ...).
std::pair<std::string, size_t> FunctionName(const std::vector<Token>& head, size_t open,
                                            size_t close) {
  if (open == 0) return {"(anonymous)", 0};
  for (size_t k = open; k-- > 0 && k + 4 >= open;) {  // operator==, operator(), operator bool
    if (head[k].text != "operator") continue;
    std::string name = "operator";
    for (size_t j = k + 1; j < open; ++j) name += head[j].text;
    return {name, k};
  }
  size_t k = open - 1;
  if (head[k].text == "]") {  // a lambda: named by the variable it initialises
    for (size_t j = k; j-- > 1;) {
      if (head[j].text == "=" && IsIdentifier(head[j - 1].text)) return {head[j - 1].text, j - 1};
    }
    return {"(lambda)", k};
  }
  if (IsMacroName(head[k].text)) return {MacroTestName(head, open, close), k};
  std::string name = head[k].text;
  if (k > 0 && head[k - 1].text == "~") name = "~" + name, --k;
  while (k >= 2 && head[k - 1].text == "::" && IsIdentifier(head[k - 2].text)) {
    name = head[k - 2].text + "::" + name;
    k -= 2;
  }
  return {name, k};
}

// The head without leading template parameter lists and attributes.
std::vector<Token> Core(const std::vector<Token>& head) {
  size_t i = 0;
  while (i < head.size()) {
    if (head[i].text == "template" && i + 1 < head.size() && head[i + 1].text == "<") {
      int depth = 0;
      for (++i; i < head.size(); ++i) {
        depth += head[i].text == "<" ? 1 : head[i].text == ">" ? -1 : 0;
        if (depth == 0) break;
      }
      ++i;
    } else if (head[i].text == "[" && i + 1 < head.size() && head[i + 1].text == "[") {
      while (i < head.size() && head[i].text != "]") ++i;
      i += 2;
    } else {
      break;
    }
  }
  return {head.begin() + static_cast<std::ptrdiff_t>(std::min(i, head.size())), head.end()};
}

// The declaration part of a head: `head` up to the ':' of a constructor's member-initializer
// list (a ':' at the top level after a ')'), or all of it.
std::vector<Token> Signature(const std::vector<Token>& head) {
  int depth = 0;
  bool after_params = false;
  for (size_t i = 0; i < head.size(); ++i) {
    const std::string& t = head[i].text;
    depth += t == "(" ? 1 : t == ")" ? -1 : 0;
    if (depth == 0 && t == ")") after_params = true;
    if (depth == 0 && t == ":" && after_params) {
      return {head.begin(), head.begin() + static_cast<std::ptrdiff_t>(i)};
    }
  }
  return head;
}

// True when the brace after `head` initialises a member (`: a_{x}`), not the constructor's body.
bool InMemberInitializers(const std::vector<Token>& head) {
  if (head.empty() || (!IsIdentifier(head.back().text) && head.back().text != ">")) return false;
  return Signature(head).size() < head.size();
}

enum class BlockKind { kFunction, kScope, kClass, kOther };

BlockKind Classify(const std::vector<Token>& head) {
  const std::vector<Token> core = Core(head);
  if (core.empty()) return BlockKind::kOther;
  const std::string& first = core[0].text;
  if (first == "namespace" ||
      (first == "inline" && core.size() > 1 && core[1].text == "namespace")) {
    return BlockKind::kScope;
  }
  if (first == "extern" && core.size() == 1) return BlockKind::kScope;  // extern "C" {
  if (InMemberInitializers(head)) return BlockKind::kOther;
  const std::vector<Token> signature = Signature(head);
  if (ParamsClose(signature) != signature.size()) return BlockKind::kFunction;
  if (first == "class" || first == "struct" || first == "union") {
    for (const Token& t : core) {
      if (t.text == "=") return BlockKind::kOther;
    }
    return BlockKind::kClass;
  }
  return BlockKind::kOther;
}

// The name a class head gives its body's functions ("Name::"), "" for an anonymous one.
std::string ClassPrefix(const std::vector<Token>& head) {
  const std::vector<Token> core = Core(head);
  for (size_t i = 1; i < core.size(); ++i) {
    const std::string& t = core[i].text;
    if (t == "final" || t == "alignas") continue;
    if (IsIdentifier(t)) return t + "::";
    if (t != "[" && t != "]" && t != "(" && t != ")") break;
  }
  return "";
}

class Scanner {
 public:
  explicit Scanner(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  FunctionScan Run() {
    Scope("", /*closed_by_brace=*/false);
    return std::move(result_);
  }

 private:
  // Walks one scope's declarations up to its closing brace (consumed), or to the end of the file.
  void Scope(const std::string& prefix, bool closed_by_brace) {
    std::vector<Token> head;  // the declaration so far
    while (pos_ < tokens_.size() && result_.error.empty()) {
      const Token& t = tokens_[pos_++];
      if (t.text == ";") {
        head.clear();
      } else if (t.text == "}") {
        if (!closed_by_brace) Fail("a '}' closes nothing", t.line);
        return;
      } else if (t.text == ":" && head.size() == 1 &&
                 (head[0].text == "public" || head[0].text == "private" ||
                  head[0].text == "protected")) {
        head.clear();
      } else if (t.text == "{") {
        Block(prefix, head, t.line);
      } else {
        head.push_back(t);
      }
    }
    if (closed_by_brace && result_.error.empty()) Fail("a '{' is never closed", 0);
  }

  // The block whose '{' (at `line`) was just consumed, after the declaration `head`.
  void Block(const std::string& prefix, std::vector<Token>& head, int line) {
    switch (Classify(head)) {
      case BlockKind::kFunction: {
        const std::vector<Token> signature = Signature(head);
        const size_t close = ParamsClose(signature);
        const auto [name, at] = FunctionName(signature, MatchingOpen(signature, close), close);
        const int end = SkipBlock(line);
        result_.functions.push_back(FunctionSpan{
            .name = prefix + name, .line = head[at].line, .lines = end - head[at].line + 1});
        head.clear();
        return;
      }
      case BlockKind::kScope:
        Scope(prefix, true);
        head.clear();
        return;
      case BlockKind::kClass:
        Scope(prefix + ClassPrefix(head), true);
        head.clear();
        return;
      case BlockKind::kOther:  // an initializer (a member's too: `: a_{x}`), an enum, ...
        SkipBlock(line);
        head.push_back(Token{"{}", line});
        return;
    }
  }

  // Skips to the '}' matching the '{' just consumed (at `line`); the line of that '}'.
  int SkipBlock(int line) {
    int depth = 1;
    while (pos_ < tokens_.size()) {
      const Token& t = tokens_[pos_++];
      if (t.text == "{") ++depth;
      if (t.text == "}" && --depth == 0) return t.line;
    }
    Fail("the '{' at line " + std::to_string(line) + " is never closed", line);
    return line;
  }

  void Fail(const std::string& what, int line) {
    if (result_.error.empty()) result_.error = "line " + std::to_string(line) + ": " + what;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  FunctionScan result_;
};

}  // namespace

FunctionScan ScanFunctions(std::string_view source) {
  return Scanner(Tokenize(BlankNonCode(source))).Run();
}

}  // namespace stepfault::test_env
