// The shape of a recorded landscape under the strategies' neighbourhood (SearchSpace::neighbours):
// how few points lie within the target and how many lead there by descent. A landscape whose
// good points are reached by steepest descent from a large share of the space rewards local
// search with restarts; one where that share is tiny leaves any search close to random sampling
// for its best points (cf. the fitness flow graphs of Schoonhoven et al., IEEE TEVC 2022).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "search/strategy.hpp"

namespace mmtune {

struct LandscapeShape {
  std::size_t points = 0;         // recorded configurations
  std::size_t failed = 0;         // of them without a time
  double best_time = 0;           // the best recorded time
  double target_time = 0;         // best_time * (1 + tolerance)
  std::size_t within_target = 0;  // points at or below target_time
  std::size_t local_minima = 0;   // timed points that no timed neighbour beats
  std::size_t minima_in_target = 0;
  // Timed points from which steepest descent (always to the fastest timed neighbour, while it is
  // faster) ends within the target: the target's basins of attraction.
  std::size_t descent_to_target = 0;
};

// times[i]: the recorded time of point i (nothing: it failed). Throws UsageError when the table
// does not match the space or holds no time.
LandscapeShape landscape_shape(const SearchSpace& space,
                               const std::vector<std::optional<double>>& times,
                               double tolerance = 0.05);

}  // namespace mmtune
