#include "search/landscape_shape.hpp"

#include "mmtune/error.hpp"

namespace mmtune {

LandscapeShape landscape_shape(const SearchSpace& space,
                               const std::vector<std::optional<double>>& times, double tolerance) {
  if (times.size() != space.size()) throw UsageError("the times do not match the search space");
  LandscapeShape s;
  s.points = space.size();
  bool any = false;
  for (const auto& t : times) {
    if (!t) {
      ++s.failed;
    } else if (!any || *t < s.best_time) {
      s.best_time = *t, any = true;
    }
  }
  if (!any) throw UsageError("no recorded configuration has a time");
  s.target_time = s.best_time * (1 + tolerance);

  // next[i]: where steepest descent goes from timed point i (i itself at a local minimum).
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> next(space.size(), kNone);
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (!times[i]) continue;
    std::size_t to = i;
    for (const std::size_t j : space.neighbours(i)) {
      if (times[j] && *times[j] < *times[to]) to = j;
    }
    next[i] = to;
    if (*times[i] <= s.target_time) ++s.within_target;
    if (to == i) {
      ++s.local_minima;
      if (*times[i] <= s.target_time) ++s.minima_in_target;
    }
  }
  // Each point's descent ends where its path does; times fall strictly along it, so it ends.
  std::vector<std::size_t> end(space.size(), kNone);
  std::vector<std::size_t> path;
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (!times[i]) continue;
    std::size_t at = i;
    path.clear();
    while (end[at] == kNone && next[at] != at) {
      path.push_back(at);
      at = next[at];
    }
    const std::size_t e = end[at] == kNone ? at : end[at];
    end[at] = e;
    for (const std::size_t p : path) end[p] = e;
    if (*times[e] <= s.target_time) ++s.descent_to_target;
  }
  return s;
}

}  // namespace mmtune
