// ShellQuote: the one quoting function for every command line stepfault prints (replay commands in
// reports and on the terminal, the recorded command of a report). The result is one POSIX shell
// word that the shell turns back into exactly `text`, whatever it contains (spaces, quotes, `$()`,
// backticks, newlines, glob characters): a safe bare word is left as it is, anything else is put
// in single quotes with each ' written as '\''. Pasting a printed command can never run code.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace stepfault::reports {

std::string ShellQuote(const std::string& text);

// The words, each quoted, joined by single spaces.
std::string ShellJoin(const std::vector<std::string>& words);

}  // namespace stepfault::reports
