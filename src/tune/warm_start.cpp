#include "tune/warm_start.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace mmtune {

std::vector<std::size_t> switch_variants(const std::vector<std::vector<int>>& points,
                                         const std::vector<int>& base) {
  const std::size_t dims = base.size();
  std::vector<std::set<int>> values(dims);
  for (const auto& p : points) {
    for (std::size_t d = 0; d < dims && d < p.size(); ++d) values[d].insert(p[d]);
  }
  // A switch takes two values (KWG 16, 32; a flag) or is a three-way mode numbered 0, 1, 2
  // (PACK); a parameter with more values is a size, left to the search.
  const auto is_switch = [&](std::size_t d) {
    const auto& v = values[d];
    return v.size() == 2 || (v.size() == 3 && *v.begin() == 0 && *v.rbegin() == int(v.size()) - 1);
  };
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::map<std::pair<std::size_t, int>, std::pair<std::size_t, std::size_t>> best;  // (d, v):
  for (std::size_t i = 0; i < points.size(); ++i) {  // (differing parameters, index)
    const auto& p = points[i];
    if (p.size() != dims) continue;
    std::size_t differ = 0;
    for (std::size_t d = 0; d < dims; ++d) differ += p[d] != base[d];
    for (std::size_t d = 0; d < dims; ++d) {
      if (p[d] == base[d] || !is_switch(d)) continue;
      auto [it, added] = best.try_emplace({d, p[d]}, kNone, i);
      if (differ < it->second.first) it->second = {differ, i};
    }
  }
  std::vector<std::size_t> out;
  for (const auto& [key, pick] : best) out.push_back(pick.second);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace mmtune
