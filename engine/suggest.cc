// EditDistance and ClosestName (see suggest.h).
#include "engine/suggest.h"

#include <algorithm>

namespace stepfault {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(name, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string best = ClosestName(name, candidates);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

}  // namespace stepfault
