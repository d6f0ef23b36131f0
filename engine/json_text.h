// ParseJsonText: JSON text from a user (a scenario file, --params, a report.json) parsed with an
// error a person can act on: "line 3, column 14: unexpected '}' ..." instead of "not valid JSON".
// Never throws; a nesting depth above kMaxJsonDepth is rejected before parsing, so hostile input
// cannot exhaust the stack.
// Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>

#include "engine/message.h"
#include "engine/status.h"

namespace stepfault {

inline constexpr int kMaxJsonDepth = 256;

// kInvalidArgument "<what>: not valid JSON at line L, column C (near '<token>'): <reason>".
Result<Json> ParseJsonText(std::string_view text, const std::string& what);

}  // namespace stepfault
