// The verdict of one row of the target table (targets.cc): a figure against its target, or "not
// measured" when the run has no figure. Kept apart so a test can judge figures at, above and below
// each target without running a benchmark.
#pragma once

#include <optional>
#include <string_view>

namespace stepfault::bench {

// Whether the figure must stay at or below the target (a cost ratio) or reach it (a speed-up).
enum class Goal { kAtMost, kAtLeast };

// "met", "not met", or "not measured" (figure absent). A figure equal to the target meets it.
std::string_view Judge(std::optional<double> figure, Goal goal, double target);

}  // namespace stepfault::bench
