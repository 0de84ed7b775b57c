// The shape of a landscape: points within the target, local minima, and the target's basins of
// attraction under steepest descent over SearchSpace::neighbours.
#include <gtest/gtest.h>

#include "mmtune/error.hpp"
#include "search/landscape_shape.hpp"

namespace mmtune {
namespace {

SearchSpace line(int n) {
  std::vector<std::vector<int>> points;
  for (int v = 1; v <= n; ++v) points.push_back({v});
  return SearchSpace({"x"}, points);
}

TEST(LandscapeShape, CountsMinimaAndTheTargetsBasinsOnALine) {
  // Times 3 2 4 1 5: minima at x=2 (time 2) and x=4 (time 1). Descent: x=1 -> x=2, x=3 -> x=4
  // (its fastest neighbour), x=5 -> x=4. Only time 1 lies within 5 %.
  const auto s = landscape_shape(line(5), {3.0, 2.0, 4.0, 1.0, 5.0});
  EXPECT_EQ(s.points, 5u);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_EQ(s.best_time, 1.0);
  EXPECT_EQ(s.within_target, 1u);
  EXPECT_EQ(s.local_minima, 2u);
  EXPECT_EQ(s.minima_in_target, 1u);
  EXPECT_EQ(s.descent_to_target, 3u);
  // A wider tolerance takes in the other minimum, and with it every point.
  const auto wide = landscape_shape(line(5), {3.0, 2.0, 4.0, 1.0, 5.0}, 1.0);
  EXPECT_EQ(wide.within_target, 2u);
  EXPECT_EQ(wide.descent_to_target, 5u);
}

TEST(LandscapeShape, AFailedPointIsNoStepAndNoStart) {
  // Times 3 - 1 on a line: x=1's only neighbour failed, so it is a minimum outside the target.
  const auto s = landscape_shape(line(3), {3.0, std::nullopt, 1.0});
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.local_minima, 2u);
  EXPECT_EQ(s.descent_to_target, 1u);
}

TEST(LandscapeShape, DescentFollowsTheFastestNeighbourInEveryDimension) {
  // A 3 x 3 grid, time = distance to (3, 3) plus one, and (1, 1) a trap: every start but the
  // trap descends to (3, 3).
  std::vector<std::vector<int>> points;
  std::vector<std::optional<double>> times;
  for (int a = 1; a <= 3; ++a) {
    for (int b = 1; b <= 3; ++b) {
      points.push_back({a, b});
      times.push_back(1.0 + (3 - a) + (3 - b));
    }
  }
  times[0] = 4.5;  // (1, 1): 5 by the rule, a little faster; its neighbours (2, 1), (1, 2): 4
  const auto s = landscape_shape(SearchSpace({"a", "b"}, points), times);
  EXPECT_EQ(s.local_minima, 1u);  // 4.5 is beaten by its neighbours at 4
  EXPECT_EQ(s.descent_to_target, 9u);
  times[0] = 3.5;  // now faster than both neighbours: a second minimum, its own basin only
  const auto trap = landscape_shape(SearchSpace({"a", "b"}, points), times);
  EXPECT_EQ(trap.local_minima, 2u);
  EXPECT_EQ(trap.descent_to_target, 8u);
}

TEST(LandscapeShape, AnEqualNeighbourIsNoStep) {
  // Times 2 1 1 3: the plateau of two 1s is two minima, both within the target; x=4 descends to
  // x=3 and x=1 to x=2.
  const auto s = landscape_shape(line(4), {2.0, 1.0, 1.0, 3.0});
  EXPECT_EQ(s.local_minima, 2u);
  EXPECT_EQ(s.minima_in_target, 2u);
  EXPECT_EQ(s.descent_to_target, 4u);
  // Times 1 3 3 2: x=2 and x=3 are equal, so neither steps to the other; each goes its own way.
  const auto split = landscape_shape(line(4), {1.0, 3.0, 3.0, 2.0});
  EXPECT_EQ(split.local_minima, 2u);
  EXPECT_EQ(split.descent_to_target, 2u);
}

TEST(LandscapeShape, RefusesATableThatDoesNotFitOrHoldsNoTime) {
  EXPECT_THROW(landscape_shape(line(3), {1.0, 2.0}), UsageError);
  EXPECT_THROW(landscape_shape(line(2), {std::nullopt, std::nullopt}), UsageError);
}

}  // namespace
}  // namespace mmtune
