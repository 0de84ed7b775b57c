#include "tune/warm_start.hpp"

#include <algorithm>
#include <limits>
#include <set>

namespace mmtune {

std::vector<std::size_t> switch_variants(const std::vector<std::vector<int>>& points,
                                         const std::vector<int>& base) {
  const std::size_t dims = base.size();
  std::vector<std::set<int>> values(dims);
  for (const auto& p : points) {
    for (std::size_t d = 0; d < dims && d < p.size(); ++d) values[d].insert(p[d]);
  }
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> best(dims, kNone), distance(dims, kNone);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.size() != dims) continue;
    std::size_t differ = 0;
    for (std::size_t d = 0; d < dims; ++d) differ += p[d] != base[d];
    for (std::size_t d = 0; d < dims; ++d) {
      if (values[d].size() == 2 && p[d] != base[d] && differ < distance[d]) {
        best[d] = i;
        distance[d] = differ;
      }
    }
  }
  std::vector<std::size_t> out;
  for (std::size_t i : best) {
    if (i != kNone) out.push_back(i);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace mmtune
