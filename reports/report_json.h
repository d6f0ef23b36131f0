// report.json: the machine-readable form of a Report, documented by
// reports/schema/report.schema.json.
//
// ToJson is canonical: keys sorted, 2-space indent, a trailing newline, no timestamps, so the same
// Report always gives the same bytes. It adds two derived members, `coverage` and `verdict`, for
// consumers that do not want to recompute them. FromJson(ToJson(r)) == r for every Report r; it
// checks the derived members are present but does not trust them (they are recomputed on output).
// A NaN ratio or median is written as null.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "engine/status.h"
#include "reports/report_model.h"

namespace stepfault::reports {

// Version 3 added the optional per-scenario `schedules` block; version 4 the violation's failure
// class, the optional `inconclusive` list and the verdict `inconclusive` (a report that used to
// say pass or violation on an incomplete recording says inconclusive), and for black-box reports
// the optional fs_model and holds_under. FromJson also reads versions 2 and 3.
inline constexpr int kReportSchemaVersion = 4;

std::string ToJson(const Report& report);

// Parses a report.json. A malformed document gives kInvalidArgument whose message starts with
// the JSON pointer of the offending value and the reason, e.g.
// "/scenarios/0/cells/3/outcome: expected one of pass|violation|n/a|not-run".
// Unknown members are rejected (the schema is closed; a newer writer bumps schema_version).
Result<Report> FromJson(std::string_view text);

}  // namespace stepfault::reports
