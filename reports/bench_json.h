// Reading Google Benchmark's JSON output (--benchmark_format=json or --benchmark_out) into
// BenchResult rows. Reports read the JSON, never console text.
//
// With repetitions, the "median" aggregate rows are used; without aggregates, the plain iteration
// rows (the median of repeated rows of one run_name, if any). Times are converted to ns (real
// time). family = the name up to the first '/'; the segments after it become labels: "k=v" and
// "k:v" give label k, a bare value gives "argN" (N counting bare values), and Google Benchmark's
// own "real_time"/"process_time"/"manual_time" markers are dropped. A user counter named "ratio"
// becomes BenchResult::ratio (NaN otherwise). Rows keep their order of first appearance.
// Thread-safety: pure function.
#pragma once

#include <string_view>
#include <vector>

#include "engine/status.h"
#include "reports/report_model.h"

namespace stepfault::reports {

// A row flagged "error_occurred" is an error, so a broken benchmark cannot vanish from the chart.
Result<std::vector<BenchResult>> ParseBenchmarkJson(std::string_view text);

}  // namespace stepfault::reports
