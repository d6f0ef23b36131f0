// ClosestName: the "did you mean" of every error about an unknown name (a fault point, a scenario
// parameter, a hazard): the candidate nearest to a typo by edit distance, when it is near enough to
// be a typo rather than a different word.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stepfault {

// Levenshtein distance (insert, delete, substitute; each costs 1).
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `name` if its distance is at most max(2, name.size() / 3); else "".
std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "".
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace stepfault
