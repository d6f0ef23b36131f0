// Escaping and number formatting shared by the text writers (HTML, XML, Markdown).
//
// Every string that comes from a scenario, a plan or a message is untrusted text: it is escaped
// at the point where it enters markup, never earlier.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stepfault::reports {

// Escapes & < > " ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

// Escapes & < > " ' for XML 1.0 and replaces characters XML 1.0 forbids (C0 controls other than
// tab, newline and carriage return) by '?'.
std::string XmlEscape(std::string_view text);

// Text for a Markdown table cell or list item: '|' escaped, newlines folded to spaces.
std::string MarkdownText(std::string_view text);
// An inline code span that survives backticks in `text`.
std::string MarkdownCode(std::string_view text);

// "66.7" style percentage with one decimal.
std::string FormatPct(double pct);
// A nanosecond time with a readable unit: "850 ns", "12.3 us", "4.56 ms", "1.23 s".
std::string FormatNanos(double ns);

}  // namespace stepfault::reports
