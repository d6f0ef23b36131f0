// ParseJsonText (see json_text.h).
#include "engine/json_text.h"

namespace stepfault {
namespace {

// The deepest nesting of [ and { outside strings.
int NestingDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// Printable text of at most 20 bytes of `text` from `offset`.
std::string TokenAt(std::string_view text, size_t offset) {
  std::string out;
  for (size_t i = offset; i < text.size() && out.size() < 20; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') break;
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return out.empty() ? "end of input" : "'" + out + "'";
}

}  // namespace

Result<Json> ParseJsonText(std::string_view text, const std::string& what) {
  if (NestingDepth(text) > kMaxJsonDepth) {
    return Status::InvalidArgument(what + ": JSON nested deeper than " +
                                   std::to_string(kMaxJsonDepth) + " levels");
  }
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte is 1-based: the byte at which the parser gave up.
    const size_t at = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, text.size());
    size_t line = 1, column = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string reason = e.what();
    const size_t colon = reason.find(": ", reason.find("parse_error"));
    if (colon != std::string::npos) reason = reason.substr(colon + 2);
    // Column of the first byte of the token the parser stopped in.
    size_t start = at;
    while (start > 0 && text[start - 1] != '\n' && text[start - 1] != ' ' &&
           text[start - 1] != ',' && text[start - 1] != ':' && text[start - 1] != '[' &&
           text[start - 1] != '{' && at - start < 20)
      --start;
    return Status::InvalidArgument(what + ": not valid JSON at line " + std::to_string(line) +
                                   ", column " + std::to_string(column - (at - start)) + " (near " +
                                   TokenAt(text, start) + "): " + reason);
  } catch (const Json::exception& e) {
    return Status::InvalidArgument(what + ": not valid JSON: " + e.what());
  }
}

}  // namespace stepfault
