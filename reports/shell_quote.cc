// ShellQuote (see shell_quote.h).
#include "reports/shell_quote.h"

namespace stepfault::reports {
namespace {

// Characters that never mean anything to a POSIX shell inside a word.
bool IsSafe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == '/' || c == ':' || c == ',' || c == '+' || c == '@' ||
         c == '%' || c == '=';
}

}  // namespace

std::string ShellQuote(const std::string& text) {
  bool safe = !text.empty() && text[0] != '=';
  for (char c : text) safe = safe && IsSafe(c);
  if (safe) return text;
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

std::string ShellJoin(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + ShellQuote(w);
  return out;
}

}  // namespace stepfault::reports
